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
cmd "spec" help="spec tools" help_heading="Tools" {
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
