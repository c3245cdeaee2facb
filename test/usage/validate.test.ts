import { describe, expect, it } from "vitest"
import { commandAt, errorsOf, kdl, parseOk, problemsOf } from "./fixtures/parse/helpers.js"

// Every message names the file and line, the command path (bin first) and the node.
const head = ['bin "supervisor"']

describe("output", () => {
  it("needs a name", async () => {
    expect(await errorsOf(kdl(...head, 'output framing="json"'))).toEqual([
      'spec.kdl:2: supervisor: output: output needs a name (its first argument, e.g. output "json")',
    ])
  })

  it("rejects unknown properties and children", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" mediatype="x" { schemas "{}"; }'))).toEqual([
      'spec.kdl:2: supervisor: output "json": unknown property mediatype="x" (did you mean media_type?)',
      'spec.kdl:2: supervisor: output "json": unknown child node "schemas" (did you mean schema?)',
    ])
  })

  it("rejects a framing other than text, json, jsonl", async () => {
    expect(
      await errorsOf(
        kdl(...head, 'cmd "daemons" {', '  cmd "start" {', '    output "json" framing="xml"', "  }", "}"),
      ),
    ).toEqual([
      'spec.kdl:4: supervisor daemons start: output "json": framing "xml" is not one of text, json, jsonl',
    ])
  })

  it("rejects non-boolean default and hide", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" default="yes" hide=1'))).toEqual([
      'spec.kdl:2: supervisor: output "json": default must be #true or #false, got "yes"',
      'spec.kdl:2: supervisor: output "json": hide must be #true or #false, got 1',
    ])
  })

  it("rejects a schema with both inline text and file=", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" { schema "{}" file="/s.json"; }'))).toEqual([
      'spec.kdl:2: supervisor: output "json": schema has both inline text and file="/s.json"; give one of them',
    ])
  })

  it("rejects a schema with neither", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" { schema; }'))).toEqual([
      'spec.kdl:2: supervisor: output "json": schema needs its text (schema "{...}") or a file (schema file="out.schema.json")',
    ])
  })

  it("rejects a relative schema file when the spec came from a string", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" { schema file="out.json"; }'))).toEqual([
      'spec.kdl:2: supervisor: output "json": schema file "out.json" is relative, but the spec was parsed from a string (no directory to resolve it against); use an absolute path or an inline schema',
    ])
  })

  it("reports an unreadable schema file with its resolved path", async () => {
    expect(await errorsOf(kdl(...head, 'output "json" { schema file="/nonexistent/out.json"; }'))).toEqual([
      'spec.kdl:2: supervisor: output "json": cannot read schema file /nonexistent/out.json: no such file',
    ])
  })

  // As usage folds them (lib/src/spec/output.rs, resolve_cmd): issue 17.
  it("takes hide=#true on an output that is not inherited as a hidden output: not there", async () => {
    const spec = await parseOk(kdl(...head, 'cmd "a" { output "text"; output "json" hide=#true; }'))
    expect(commandAt(spec, "a").outputs.map((o) => o.name)).toEqual(["text"])
  })

  it("folds the same output twice in one command: the later one wins, in the first one's place", async () => {
    const spec = await parseOk(kdl(...head, 'output "json"', 'output "text"', 'output "json" framing="json"'))
    expect(spec.root.outputs.map((o) => [o.name, o.framing])).toEqual([
      ["json", "json"],
      ["text", "text"],
    ])
  })
})

describe("default outputs", () => {
  it("rejects more than one effective default, where the second is added", async () => {
    expect(
      await errorsOf(
        kdl(
          ...head,
          'output "text" default=#true',
          'cmd "status" {',
          '  output "json" default=#true',
          "}",
          'cmd "ok"',
        ),
      ),
    ).toEqual([
      'spec.kdl:4: supervisor status: output "json": more than one default output ("text", "json"); mark exactly one default=#true',
    ])
  })

  it("rejects two defaults in one command", async () => {
    expect(
      await errorsOf(kdl(...head, 'output "text" default=#true', 'output "json" default=#true')),
    ).toEqual([
      'spec.kdl:2: supervisor: output "text": more than one default output ("text", "json"); mark exactly one default=#true',
    ])
  })

  it("accepts a command that moves the inherited default to another output", async () => {
    const spec = await parseOk(
      kdl(
        ...head,
        'output "text" default=#true',
        'output "json"',
        'cmd "a" {',
        '  output "text"',
        '  output "json" default=#true',
        "}",
      ),
    )
    expect(
      commandAt(spec, "a")
        .outputs.filter((o) => o.default)
        .map((o) => o.name),
    ).toEqual(["json"])
  })
})

describe("exit_code", () => {
  it("rejects a status that is not an integer", async () => {
    expect(await errorsOf(kdl(...head, 'exit_code "one" "failure"', 'exit_code 1.5 "half"'))).toEqual([
      'spec.kdl:2: supervisor: exit_code "one": exit code must be an integer, got "one"',
      "spec.kdl:3: supervisor: exit_code 1.5: exit code must be an integer, got 1.5",
    ])
  })

  it("rejects a status outside 0-255, saying why", async () => {
    expect(await errorsOf(kdl(...head, 'exit_code 256 "overflow"', 'exit_code -1 "negative"'))).toEqual([
      "spec.kdl:2: supervisor: exit_code 256: exit code 256 is outside 0-255: a shell sees only the low byte of an exit status (256 would read as 0)",
      "spec.kdl:3: supervisor: exit_code -1: exit code -1 is outside 0-255: a shell sees only the low byte of an exit status (-1 would read as 255)",
    ])
  })

  it("rejects an empty or missing description", async () => {
    expect(await errorsOf(kdl(...head, 'exit_code 3 ""', "exit_code 4"))).toEqual([
      "spec.kdl:2: supervisor: exit_code 3: exit code 3 needs a non-empty description",
      "spec.kdl:3: supervisor: exit_code 4: exit code 4 needs a non-empty description",
    ])
  })
})

describe("select", () => {
  it("must name a flag of the command or an inherited global, listing those that exist", async () => {
    expect(
      await errorsOf(
        kdl(
          ...head,
          'flag "-v --verbose" global=#true',
          'flag "--root-only <X>"',
          'cmd "a" {',
          '  flag "-o"',
          '  output "json"',
          '  select "--fmt"',
          "}",
        ),
      ),
    ).toEqual([
      'spec.kdl:7: supervisor a: select "--fmt": select names --fmt, which is not a flag of this command (flags: -o, --verbose)',
    ])
  })

  it("must name a flag that takes a value", async () => {
    expect(await errorsOf(kdl(...head, 'flag "--json"', 'output "json"', 'select "--json"'))).toEqual([
      'spec.kdl:4: supervisor: select "--json": select names --json, a flag that takes no value; for a boolean flag put select="--json" on the output',
    ])
  })

  it("is declared at most once per command", async () => {
    expect(
      await errorsOf(
        kdl(...head, 'flag "--format <F>"', 'flag "--out <O>"', 'select "--format"', 'select "--out"'),
      ),
    ).toEqual([
      'spec.kdl:5: supervisor: select "--out": only one select per command; this command already has select "--format"',
    ])
  })

  it("reports declared choices that disagree with the effective outputs, on each side", async () => {
    expect(
      await errorsOf(
        kdl(
          ...head,
          'flag "--format <F>" { choices "text" "yaml"; }',
          'output "text"',
          'output "json"',
          'select "--format"',
        ),
      ),
    ).toEqual([
      'spec.kdl:5: supervisor: select "--format": the choices of --format disagree with the outputs of this command: no output for choice "yaml"; no choice for output "json"',
    ])
  })

  it("select= on an output must name a boolean flag that exists", async () => {
    expect(
      await errorsOf(
        kdl(
          ...head,
          'flag "--format <F>"',
          'output "json" select="--format"',
          'output "yaml" select="--yaml"',
        ),
      ),
    ).toEqual([
      'spec.kdl:3: supervisor: output "json": select="--format" names a flag that takes a value; use a command-level select "--format" for a value flag',
      'spec.kdl:4: supervisor: output "yaml": select="--yaml" is not a flag of this command (flags: --format)',
    ])
  })
})

describe("usage nodes", () => {
  it("reports flags, args and commands that cannot be read", async () => {
    expect(
      await errorsOf(
        kdl(
          ...head,
          'flag "format"',
          'flag "--a" requird=#true',
          'flag "--b" { choices "x"; }',
          'arg "<>"',
          "cmd",
          'example "x" language="sh"',
          'include "other.kdl"',
        ),
      ),
    ).toEqual([
      'spec.kdl:2: supervisor: flag "format": unexpected "format" in flag "format" (expected -x, --name, name: and one <VALUE> or [VALUE])',
      'spec.kdl:3: supervisor: flag "--a": unknown property requird=#true (did you mean required?)',
      'spec.kdl:4: supervisor: flag "--b": choices: a flag must take a value to have choices (add <VALUE> to its usage, or a child arg)',
      'spec.kdl:5: supervisor: arg "<>": "<>" has no name (write <name>, [name] or name)',
      'spec.kdl:6: supervisor: cmd: needs a name (cmd "start")',
      'spec.kdl:7: supervisor: example "x": unknown property language="sh" (known: header, help, lang)',
      'spec.kdl:8: include "other.kdl": unexpected argument "other.kdl"',
      'spec.kdl:8: include "other.kdl": include needs file="<path>"',
    ])
  })
})

describe("collecting", () => {
  it("reports every problem, not just the first, with file, line, path and node", async () => {
    const problems = await problemsOf(
      kdl(
        ...head,
        'output "a" framing="xml"',
        'cmd "b" {',
        '  exit_code 999 "x"',
        '  output "c" default="no"',
        "}",
      ),
    )
    expect(problems).toEqual([
      {
        file: "spec.kdl",
        line: 2,
        path: ["supervisor"],
        node: 'output "a"',
        message: 'framing "xml" is not one of text, json, jsonl',
      },
      expect.objectContaining({ line: 4, path: ["supervisor", "b"], node: "exit_code 999" }),
      expect.objectContaining({ line: 5, path: ["supervisor", "b"], node: 'output "c"' }),
    ])
  })
})
