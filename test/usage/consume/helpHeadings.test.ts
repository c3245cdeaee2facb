import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { rootCommand } from "../../../src/cli/commands.js"
import { cliSpec } from "../../../src/cli/usageSpec/cliSpec.js"
import { helpText } from "../../../src/usage/consume/helpText.js"
import { markdownDocs } from "../../../src/usage/consume/index.js"
import { parseSpecString, writeSpec } from "../../../src/usage/index.js"

const KDL = `bin "demo"
cmd "start" help="start daemons" help_heading="Daemons"
cmd "stop" help="stop daemons" help_heading="Daemons"
cmd "logs" help="show logs" help_heading="Logs"
cmd "version" help="print the version"
cmd "spec" help="spec tools" help_heading="Tools" subcommand_required=#true {
  cmd "check" help="check a spec"
}
`

describe("help_heading", () => {
  const spec = Effect.runSync(parseSpecString(KDL))

  it("is read from a cmd and written back", () => {
    expect(spec.root.subcommands.map((c) => c.help_heading)).toEqual([
      "Daemons",
      "Daemons",
      "Logs",
      undefined,
      "Tools",
    ])
    const again = Effect.runSync(parseSpecString(writeSpec(spec)))
    expect(again.root.subcommands.map((c) => c.help_heading)).toEqual(
      spec.root.subcommands.map((c) => c.help_heading),
    )
  })

  it("groups the help's commands, in the order of their first command, with one column", () => {
    const text = helpText(spec, spec.root)
    expect(text).toContain(
      [
        "Daemons:",
        "  start       start daemons",
        "  stop        stop daemons",
        "",
        "Logs:",
        "  logs        show logs",
        "",
        "Commands:",
        "  version     print the version",
        "",
        "Tools:",
        "  spec check  check a spec",
      ].join("\n"),
    )
  })

  it("a command made of subcommands that runs alone has its own line, then theirs; a required one has none", () => {
    const alone = Effect.runSync(
      parseSpecString(
        [
          'bin "demo"',
          'cmd "daemons" help="list the daemons" {',
          '  cmd "add" help="add one"',
          "}",
          'cmd "config" help="configuration" subcommand_required=#true {',
          '  cmd "show" help="show it"',
          "}",
          "",
        ].join("\n"),
      ),
    )
    expect(helpText(alone, alone.root)).toContain(
      [
        "Commands:",
        "  daemons      list the daemons",
        "  daemons add  add one",
        "  config show  show it",
      ].join("\n"),
    )
  })

  it("the CLI's settings and daemons run alone; its other commands made of subcommands need one", () => {
    const cli = cliSpec(rootCommand, { version: "0.0.0-test" })
    const parents = cli.root.subcommands.filter((c) => c.subcommands.length > 0 && !c.hide)
    expect(parents.filter((c) => c.subcommand_required !== true).map((c) => c.name)).toEqual([
      "settings",
      "daemons",
    ])
    expect(parents.filter((c) => c.subcommand_required === true).map((c) => c.name)).toEqual(
      expect.arrayContaining(["supervisor", "boot", "config", "project", "spec"]),
    )
    const text = helpText(cli, cli.root)
    expect(text).toMatch(/\n {2}settings +print every setting as TOML[^\n]*\n {2}settings list /)
    expect(text).toMatch(/\n {2}daemons +list the configured daemons[^\n]*\n {2}daemons add /)
    expect(text).not.toMatch(/\n {2}config +inspect/)
    expect(text).not.toMatch(/\n {2}spec +check, resolve/)
  })

  it("without headings, one Commands list as before", () => {
    const plain = Effect.runSync(parseSpecString('bin "demo"\ncmd "a" help="A"\ncmd "b" help="B"\n'))
    expect(helpText(plain, plain.root)).toContain("Commands:\n  a  A\n  b  B\n")
  })

  it("groups the Markdown index's commands under their headings", () => {
    const index = markdownDocs(spec).get("index.md")!
    expect(index).toMatch(/\*\*Daemons\*\*\n\n\| Command \| Description \|\n\|---\|---\|\n\| \[`start`\]/)
    expect(index.indexOf("**Tools**")).toBeGreaterThan(index.indexOf("**Logs**"))
  })

  it("the CLI lists its commands under Daemons, Logs, Supervisor, Configuration, Shell and Tools", () => {
    const cli = cliSpec(rootCommand, { version: "0.0.0-test" })
    const headings = [...new Set(cli.root.subcommands.filter((c) => !c.hide).map((c) => c.help_heading))]
    expect(headings).toEqual(["Daemons", "Logs", "Supervisor", "Configuration", "Shell", "Tools"])
    expect(cli.root.subcommands.find((c) => c.name === "spec")?.help_heading).toBe("Tools")
  })
})
