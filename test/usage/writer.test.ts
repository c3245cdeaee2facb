import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { writeSpec } from "../../src/usage/index.js"
import type { Command, Spec } from "../../src/usage/model.js"
import { kdl, parseFileOk, parseOk, sandbox } from "./fixtures/parse/helpers.js"

/** The spec without what legitimately changes on a round trip (where schemas were read from). */
const comparable = (spec: Spec) => {
  const cmd = (c: Command): Command => ({
    ...c,
    outputs: c.outputs.map((o) => ({ ...o, schema_file: undefined })),
    subcommands: c.subcommands.map(cmd),
  })
  return { ...spec, sources: [], root: cmd(spec.root) }
}

const SCHEMA = '{\n  "type": "object",\n  "description": "a \\\\ path \\"quoted\\"",\n\n  "x": 1\n}\n'

const rich = kdl(
  'name "Supervisor"',
  'bin "supervisor"',
  'version "1.0"',
  'about "Runs \\"daemons\\"\\nfor you"',
  'author "Ann <ann@example.org>"',
  'license "MIT"',
  'usage "supervisor [flags] <cmd>"',
  'flag "-f --format <FMT>" "output format" global=#true',
  'flag "--json" global=#true hide=#true',
  'flag "--level" default="info" { arg "[LVL]" { choices { choice "info" help="normal"; choice "debug"; }; }; }',
  'flag "--tag <T>" var=#true { choices "a" "b"; }',
  'flag "--jobs <N>" default=4',
  'output "text" default=#true help="for people"',
  'output "json" media_type="application/json" framing="json" { schema #"{"type":"object"}"#; }',
  'select "--format"',
  'exit_code 0 "success"',
  'exit_code 1 "failure"',
  'exit_code 130 "interrupted (Ctrl-C)"',
  'complete "id" run="supervisor list --ids"',
  'example "supervisor start web" header="Start one" help="starts web"',
  'cmd "daemons" help="manage daemons" long_help="Manage\\tdaemons" {',
  '  alias "d" "ds"',
  '  cmd "start" hide=#true {',
  '    arg "<id>..." help="daemon ids"',
  '    arg "[rest]" var=#true { choices "x"; }',
  '    output "json" media_type="application/json" framing="json" help="start results"',
  '    output "jsonl" framing="jsonl"',
  '    exit_code 1 "a daemon failed"',
  '    exit_code 3 "no such daemon"',
  '    mount run="supervisor mount"',
  '    group "g" "--json" "--yaml" { multiple #true; }',
  "  }",
  '  cmd "logs" {',
  '    output "text" hide=#true',
  '    output "ndjson" framing="jsonl" default=#true',
  "  }",
  "}",
  'cmd "status" {',
  '  flag "-o --output <O>"',
  '  flag "--raw"',
  '  output "raw" select="--raw"',
  '  select "-o"',
  "}",
  'cmd "version" {',
  '  output "json" hide=#true',
  '  output "text" help="just the version"',
  "}",
)

describe("writeSpec", () => {
  it("parses back to the same spec", async () => {
    const spec = await parseOk(rich)
    const again = await parseOk(writeSpec(spec))
    expect(comparable(again)).toEqual(comparable(spec))
  })

  it("is idempotent: write(parse(write(parse(x)))) === write(parse(x))", async () => {
    const once = writeSpec(await parseOk(rich))
    expect(writeSpec(await parseOk(once))).toBe(once)
  })

  it("writes only what a command changes, with 2-space indentation", async () => {
    const text = writeSpec(await parseOk(rich))
    expect(text).toContain(
      [
        '  cmd "logs" {',
        '    output "text" hide=#true',
        '    output "ndjson" framing="jsonl" default=#true',
        "  }",
      ].join("\n"),
    )
    // Inherited globals, unchanged outputs and exit codes are not repeated; derived choices are not written.
    expect(text.match(/flag "-f --format <FMT>"/g)).toHaveLength(1)
    expect(text.match(/exit_code 0 /g)).toHaveLength(1)
    expect(text).toContain('flag "-f --format <FMT>" help="output format" global=#true\n')
    expect(text).toContain('cmd "status" {\n  flag "-o --output <O>"\n')
  })

  it("inlines schema files as raw strings, multi-line when the text is", async () => {
    const dir = sandbox({
      "spec.kdl": kdl(
        'bin "x"',
        'cmd "a" {',
        '  output "json" framing="json" { schema file="s.json"; }',
        "}",
      ),
      "s.json": SCHEMA,
    })
    const spec = await parseFileOk(nodePath.join(dir, "spec.kdl"))
    const text = writeSpec(spec)
    expect(text).toBe(
      [
        'bin "x"',
        'cmd "a" {',
        '  output "json" framing="json" {',
        '    schema #"""',
        "      {",
        '        "type": "object",',
        '        "description": "a \\\\ path \\"quoted\\"",',
        "",
        '        "x": 1',
        "      }",
        "",
        '      """#',
        "  }",
        "}",
        "",
      ].join("\n"),
    )
    const again = await parseOk(text)
    expect(again.root.subcommands[0]!.outputs[0]!.schema).toBe(SCHEMA)
    expect(writeSpec(again)).toBe(text)
  })

  it.each([
    ["a single line with quotes", '{"type":"string"}'],
    ["a raw-string closer inside", 'say "# and """# here'],
    ["text without quotes", "plain text"],
    ["a whitespace-only line", '{\n  \n"a":1}'],
    ["carriage returns", '{"a":1}\r\n'],
    ["control characters", '{"a":"\u0007"}\n'],
    ["a leading newline", '\n{"a": 1}'],
  ])("keeps a schema with %s verbatim", async (_, schema) => {
    const spec = await parseOk(
      kdl('bin "x"', `output "o" { schema ${JSON.stringify(schema).replace(/\\u0007/g, "\\u{7}")}; }`),
    )
    expect(spec.root.outputs[0]!.schema).toBe(schema)
    const again = await parseOk(writeSpec(spec))
    expect(again.root.outputs[0]!.schema).toBe(schema)
  })

  it("escapes other strings", async () => {
    const spec = await parseOk(kdl('bin "x"', 'about "tab\\there \\"q\\" back\\\\slash\\nline \\u{1b}"'))
    expect(writeSpec(spec)).toBe('bin "x"\nabout "tab\\there \\"q\\" back\\\\slash\\nline \\u{1b}"\n')
  })
})
