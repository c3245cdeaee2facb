import { execFileSync, spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { manPage } from "../../../src/usage/consume/index.js"
import { prose } from "../../../src/usage/consume/roff.js"
import type { Spec } from "../../../src/usage/model.js"
import { spec } from "./fixture.js"

const page = manPage(spec)

const has = (tool: string): boolean => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0

/** The roff source of one `.SH` section. */
const section = (name: string): string => {
  const start = page.indexOf(`.SH ${name}\n`)
  if (start < 0) throw new Error(`no section ${name}`)
  const rest = page.slice(start + name.length + 5)
  const next = rest.indexOf("\n.SH ")
  return next < 0 ? rest : rest.slice(0, next)
}

describe("manPage: structure", () => {
  it("is a section-1 page with the expected sections in order", () => {
    expect(page).toMatch(/^\.\\" .*\n\.TH "DEMO" 1 "" "Demo 1\.2\.3" "User Commands"\n/)
    const order = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "OUTPUT FORMATS", "EXIT STATUS"]
    const positions = order.map((s) => page.indexOf(`\n.SH ${s}\n`))
    expect(positions.every((p) => p > 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
  })

  it("has NAME on one line and a synopsis per visible command", () => {
    expect(section("NAME")).toBe("demo \\- A demo supervisor")
    const synopsis = section("SYNOPSIS")
    expect(synopsis).toContain("\\fB\\%demo daemons stop\\fR [FLAGS] <name>...")
    expect(synopsis).not.toContain("debug")
  })

  it("escapes dashes in options and protects lines starting with a dot", () => {
    expect(section("OPTIONS")).toContain(
      ".TP\n\\fB\\%\\-f\\fR, \\fB\\%\\-\\-format\\fR \\fI\\%FMT\\fR\nOutput format",
    )
    expect(section("COMMANDS")).toContain("\n\\&.Lines starting with a dot")
    // Prose keeps `--` used as a dash, but escapes option-like dashes.
    expect(section("DESCRIPTION")).toContain("It runs -- and watches -- background daemons.")
    expect(section("COMMANDS")).toContain("Shorthand for \\-\\-format json")
  })

  it("documents each command's own flags and arguments under COMMANDS", () => {
    const commands = section("COMMANDS")
    expect(commands).toContain(".TP\n\\fB\\%\\-s\\fR, \\fB\\%\\-\\-signal\\fR \\fI\\%SIG\\fR\nSignal to send")
    expect(commands).toContain("Aliases: \\fB\\%st\\fR.")
    expect(commands).toContain("\\fI\\%[mode]\\fR\nOptional. One of: graceful, hard.")
  })

  it("groups commands with identical outputs, and lists each output's selection and schema", () => {
    const formats = section("OUTPUT FORMATS")
    expect(formats).toContain('.SS "demo, demo daemons, demo daemons stop, demo daemons restart"')
    expect(formats).toContain('.SS "demo daemons list"')
    expect(formats).toContain(
      "Selected with \\fB\\%\\-\\-format xml\\fR; framing \\fB\\%text\\fR; media type \\fB\\%application/xml\\fR.",
    )
    expect(formats).toContain("Selected with \\fB\\%\\-\\-json\\fR; framing \\fB\\%json\\fR")
    expect(formats).toContain(
      'JSON Schema:\n.RS\n.nf\n{\n  "$schema": "https://json\\-schema.org/draft/2020\\-12/schema",',
    )
    expect(formats).toContain(
      "Schema (not valid JSON; verbatim):\n.RS\n.nf\n{ type: object, this is not | JSON\n.fi\n.RE",
    )
  })

  it("lists exit statuses, separately for a command that redefines one", () => {
    const exit = section("EXIT STATUS")
    expect(exit).toContain(".TP\n\\fB\\%1\\fR\nFailure | see the supervisor log")
    expect(exit).toContain(
      '.SS "demo daemons stop"\n.TP\n\\fB\\%0\\fR\nSuccess\n.TP\n\\fB\\%1\\fR\nA daemon did not stop',
    )
  })

  it("escapes backslashes, quotes in macro arguments and leading apostrophes", () => {
    expect(prose("C:\\path\n'quoted\n\nnext")).toBe("C:\\epath\n\\&'quoted\n.sp\nnext")
    const odd: Spec = { ...spec, name: 'say "hi"', root: { ...spec.root, subcommands: [] } }
    expect(manPage(odd)).toContain('.TH "DEMO" 1 "" "say \\(dqhi\\(dq 1.2.3" "User Commands"')
  })
})

describe("manPage: rendered by groff", () => {
  it("renders with no warnings at all (-ww)", () => {
    if (!has("groff")) throw new Error("groff is not installed: run `apt-get install groff-base`")
    const result = spawnSync("groff", ["-man", "-Tutf8", "-ww", "-z"], { input: page, encoding: "utf8" })
    expect(result.status).toBe(0)
    expect(result.stderr).toBe("")
  })

  it("renders the content a reader expects", () => {
    // Some groff setups render \- as U+2212, others (Debian's man.local) as "-": accept both.
    const text = execFileSync("groff", ["-man", "-Tutf8", "-P-cbou", "-rLL=200n"], {
      input: page,
      encoding: "utf8",
    }).replace(/\u2212/g, "-")
    expect(text).toMatch(/^NAME\n\s+demo - A demo supervisor$/m)
    expect(text).toContain(".Lines starting with a dot must not become roff requests.")
    expect(text).toMatch(/Selected with --format json; framing json; media type application\/json\./)
    expect(text).toContain('"$schema": "https://json-schema.org/draft/2020-12/schema",')
    expect(text).toContain("{ type: object, this is not | JSON")
  })
})
