import { describe, expect, it } from "vitest"
import { commandAt, errorsOf, kdl, parseOk } from "./fixtures/parse/helpers.js"

const cli = kdl(
  'bin "supervisor"',
  'flag "-f --format <FMT>" global=#true',
  'flag "--json" global=#true',
  'output "text" default=#true help="for people"',
  'output "json" media_type="application/json" framing="json"',
  'select "--format"',
  'exit_code 0 "success"',
  'exit_code 1 "failure"',
  'exit_code 130 "interrupted"',
  'cmd "daemons" {',
  '  cmd "start" {',
  '    output "json" media_type="application/json" framing="json" help="start results"',
  '    output "jsonl" framing="jsonl"',
  '    exit_code 1 "a daemon failed to start"',
  '    exit_code 3 "no such daemon"',
  "  }",
  '  cmd "logs" {',
  '    output "text" hide=#true',
  '    output "ndjson" framing="jsonl" default=#true',
  "  }",
  "}",
  'cmd "version" {',
  '  output "json" hide=#true',
  "}",
)

describe("inheritance of outputs", () => {
  it("applies top-level outputs to every command", async () => {
    const spec = await parseOk(cli)
    expect(commandAt(spec, "daemons").outputs.map((o) => o.name)).toEqual(["text", "json"])
  })

  it("replaces a redeclared output whole, in its inherited position", async () => {
    const start = commandAt(await parseOk(cli), "daemons", "start")
    expect(start.outputs.map((o) => o.name)).toEqual(["text", "json", "jsonl"])
    expect(start.outputs[1]).toMatchObject({ help: "start results", framing: "json" })
  })

  it("replaces whole: properties are not merged from the inherited output", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'output "json" media_type="application/json" framing="json"',
        'cmd "a" { output "json"; }',
      ),
    )
    expect(commandAt(spec, "a").outputs[0]).toMatchObject({
      name: "json",
      framing: "text",
      media_type: undefined,
    })
  })

  it("removes an inherited output with hide=#true", async () => {
    const spec = await parseOk(cli)
    expect(commandAt(spec, "daemons", "logs").outputs.map((o) => o.name)).toEqual(["json", "ndjson"])
    expect(commandAt(spec, "version").outputs.map((o) => o.name)).toEqual(["text"])
  })

  it("passes a command's effective outputs on to its subcommands", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'output "a"', 'cmd "b" {', '  output "a" hide=#true', '  output "c"', '  cmd "d"', "}"),
    )
    expect(commandAt(spec, "b", "d").outputs.map((o) => o.name)).toEqual(["c"])
  })
})

describe("exit codes", () => {
  it("fold by number: a redeclared number keeps its place, new numbers are appended", async () => {
    const spec = await parseOk(cli)
    expect(commandAt(spec, "daemons", "start").exit_codes).toEqual([
      { code: 0, description: "success" },
      { code: 1, description: "a daemon failed to start" },
      { code: 130, description: "interrupted" },
      { code: 3, description: "no such daemon" },
    ])
    expect(commandAt(spec, "daemons", "logs").exit_codes.map((e) => e.code)).toEqual([0, 1, 130])
  })
})

describe("select", () => {
  it("gives a shared global selector flag per-command choices", async () => {
    const spec = await parseOk(cli)
    const choices = (...path: Array<string>) =>
      commandAt(spec, ...path).flags.find((f) => f.long[0] === "format")!.arg!.choices
    expect(choices()).toEqual([{ value: "text", help: "for people" }, { value: "json" }])
    expect(choices("daemons", "start")).toEqual([
      { value: "text", help: "for people" },
      { value: "json", help: "start results" },
      { value: "jsonl" },
    ])
    expect(choices("daemons", "logs")).toEqual([{ value: "json" }, { value: "ndjson" }])
    expect(choices("version")).toEqual([{ value: "text", help: "for people" }])
  })

  it("is inherited, and every output gets a value selector", async () => {
    const logs = commandAt(await parseOk(cli), "daemons", "logs")
    expect(logs.select).toBe("--format")
    expect(logs.outputs.map((o) => o.selector)).toEqual([
      { kind: "value", flag: "--format", value: "json" },
      { kind: "value", flag: "--format", value: "ndjson" },
    ])
  })

  it("can be set by a command for its own value flag", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'output "text"',
        'cmd "a" {',
        '  flag "-o --output <O>"',
        '  output "json"',
        '  select "-o"',
        "}",
      ),
    )
    expect(spec.root.select).toBeUndefined()
    expect(spec.root.outputs[0]!.selector).toBeNull()
    expect(commandAt(spec, "a").select).toBe("--output")
    expect(commandAt(spec, "a").flags[0]!.arg!.choices).toEqual([{ value: "text" }, { value: "json" }])
  })

  it("select= on an output gives a present selector, inherited with the output", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "--json" global=#true',
        'output "text"',
        'output "json" select="--json"',
        'cmd "a"',
      ),
    )
    expect(commandAt(spec, "a").outputs.map((o) => o.selector)).toEqual([
      null,
      { kind: "present", flag: "--json" },
    ])
  })

  it("an explicit select= wins for the selector; the value select still offers the output", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "--json"',
        'flag "--format <F>"',
        'output "json" select="--json"',
        'select "--format"',
      ),
    )
    expect(spec.root.outputs[0]!.selector).toEqual({ kind: "present", flag: "--json" })
    const format = spec.root.flags.find((f) => f.long.includes("format"))
    expect(format?.arg?.choices?.map((c) => c.value)).toEqual(["json"])
  })

  // As usage (lib/src/spec/output.rs, resolve_cmd): a select inherits only as far as its flag.
  it("drops an inherited select whose flag does not reach the subcommand", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'flag "--format <F>"', 'output "a"', 'select "--format"', 'cmd "b"'),
    )
    expect(commandAt(spec, "b").select).toBeUndefined()
    expect(commandAt(spec, "b").outputs.map((o) => o.selector)).toEqual([null])
  })

  it("still requires a select written on a command to name one of its flags", async () => {
    expect(await errorsOf(kdl('bin "x"', 'output "a"', 'cmd "b" { select "--format"; }'))).toEqual([
      'spec.kdl:3: x b: select "--format": select names --format, which is not a flag of this command (this command has no flags)',
    ])
  })

  it("drops an inherited select= whose boolean flag does not reach the subcommand", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "--json"',
        'output "text" default=#true',
        'output "json" select="--json"',
        'cmd "n"',
      ),
    )
    expect(spec.root.outputs[1]!.selector).toEqual({ kind: "present", flag: "--json" })
    expect(commandAt(spec, "n").outputs.map((o) => o.selector)).toEqual([null, null])
  })
})

describe("flags", () => {
  it("a command has its own flags, then the globals it inherits", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "-v --verbose" global=#true',
        'flag "--local"',
        'cmd "a" {',
        '  flag "--mine" global=#true',
        '  cmd "b" { flag "--leaf"; }',
        "}",
      ),
    )
    expect(commandAt(spec, "a").flags.map((f) => f.usage)).toEqual(["--mine", "-v --verbose"])
    expect(commandAt(spec, "a", "b").flags.map((f) => [f.usage, f.global])).toEqual([
      ["--leaf", false],
      ["-v --verbose", true],
      ["--mine", true],
    ])
  })

  it("a command's own flag shadows an inherited global of the same name", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'flag "-v --verbose" global=#true', 'cmd "a" { flag "--verbose" "louder"; }'),
    )
    expect(commandAt(spec, "a").flags).toEqual([
      expect.objectContaining({ usage: "--verbose", help: "louder", global: false }),
    ])
  })
})
