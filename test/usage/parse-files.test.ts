import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { formatUsageProblems } from "../../src/usage/index.js"
import {
  commandAt,
  fileProblemsOf,
  kdl,
  parseFileOk,
  parseOk,
  problemsOf,
  sandbox,
} from "./fixtures/parse/helpers.js"

const SCHEMA = '{\n  "type": "object",\n  "properties": { "id": { "type": "string" } }\n}\n'

describe("include and schema files", () => {
  it("splices included nodes in place, relative to the including file", async () => {
    const dir = sandbox({
      "spec.kdl": kdl(
        'bin "supervisor"',
        'include file="common/outputs.kdl"',
        'cmd "daemons" {',
        '  include file="daemons.kdl"',
        "}",
      ),
      "common/outputs.kdl": kdl('output "text" default=#true', 'exit_code 0 "success"'),
      "daemons.kdl": kdl('cmd "start" help="start daemons"'),
    })
    const spec = await parseFileOk(nodePath.join(dir, "spec.kdl"))
    expect(spec.root.outputs.map((o) => o.name)).toEqual(["text"])
    expect(spec.root.exit_codes).toEqual([{ code: 0, description: "success" }])
    expect(commandAt(spec, "daemons", "start").help).toBe("start daemons")
  })

  it("loads a schema file relative to the KDL file declaring it, also inside an included file in a subdirectory", async () => {
    const dir = sandbox({
      "spec.kdl": kdl(
        'bin "supervisor"',
        'output "json" framing="json" { schema file="schemas/root.json"; }',
        'include file="cmds/daemons.kdl"',
      ),
      "schemas/root.json": SCHEMA,
      "cmds/daemons.kdl": kdl(
        'cmd "daemons" {',
        '  output "json" framing="json" { schema file="daemons.schema.json"; }',
        "}",
      ),
      "cmds/daemons.schema.json": '{"type":"array"}',
    })
    const spec = await parseFileOk(nodePath.join(dir, "spec.kdl"))
    expect(spec.root.outputs[0]).toMatchObject({
      schema: SCHEMA,
      schema_file: nodePath.join(dir, "schemas/root.json"),
    })
    expect(commandAt(spec, "daemons").outputs[0]).toMatchObject({
      schema: '{"type":"array"}',
      schema_file: nodePath.join(dir, "cmds/daemons.schema.json"),
    })
  })

  it("lists every file read in sources: absolute, in read order, once each", async () => {
    const dir = sandbox({
      "spec.kdl": kdl(
        'bin "x"',
        'include file="shared.kdl"',
        'cmd "a" { include file="shared.kdl"; }',
        'cmd "b" { include file="sub/b.kdl"; }',
      ),
      "shared.kdl": kdl('output "json" { schema file="s.json"; }'),
      "s.json": "{}",
      "sub/b.kdl": kdl('output "yaml" { schema file="../s.json"; }'),
    })
    const spec = await parseFileOk(nodePath.join(dir, "spec.kdl"))
    expect(spec.sources).toEqual([
      nodePath.join(dir, "spec.kdl"),
      nodePath.join(dir, "shared.kdl"),
      nodePath.join(dir, "sub/b.kdl"),
      nodePath.join(dir, "s.json"),
    ])
  })

  it("reads absolute includes from a string spec; their relative schema files resolve from them", async () => {
    const dir = sandbox({ "inc.kdl": kdl('output "json" { schema file="s.json"; }'), "s.json": "{}" })
    const spec = await parseOk(
      kdl('bin "x"', `include file=${JSON.stringify(nodePath.join(dir, "inc.kdl"))}`),
    )
    expect(spec.root.outputs[0]).toMatchObject({ schema: "{}", schema_file: nodePath.join(dir, "s.json") })
    expect(spec.sources).toEqual([nodePath.join(dir, "inc.kdl"), nodePath.join(dir, "s.json")])
  })

  it("rejects relative includes in a string spec", async () => {
    expect(formatUsageProblems(await problemsOf(kdl('bin "x"', 'include file="other.kdl"')))).toBe(
      'spec.kdl:2: include: include file "other.kdl" is relative, but the spec was parsed from a string (no directory to resolve it against); use an absolute path',
    )
  })

  it("reports problems in an included file with that file and line", async () => {
    const dir = sandbox({
      "spec.kdl": kdl('bin "x"', 'cmd "a" {', '  include file="sub/a.kdl"', "}"),
      "sub/a.kdl": kdl(
        "// outputs of a",
        'output "json" framing="yaml"',
        'output "x" { schema file="missing.json"; }',
      ),
    })
    const problems = await fileProblemsOf(nodePath.join(dir, "spec.kdl"))
    expect(
      problems.map((p) => [p.file.endsWith(nodePath.join("sub", "a.kdl")), p.line, p.path, p.message]),
    ).toEqual([
      [true, 2, ["x", "a"], 'framing "yaml" is not one of text, json, jsonl'],
      [
        true,
        3,
        ["x", "a"],
        `cannot read schema file ${nodePath.join(dir, "sub/missing.json")}: no such file`,
      ],
    ])
  })

  it("reports an include cycle", async () => {
    const dir = sandbox({
      "spec.kdl": kdl('bin "x"', 'include file="a.kdl"'),
      "a.kdl": kdl('include file="spec.kdl"'),
    })
    const problems = await fileProblemsOf(nodePath.join(dir, "spec.kdl"))
    expect(problems.map((p) => p.message)).toEqual([
      `include cycle: ${nodePath.join(dir, "spec.kdl")} -> ${nodePath.join(dir, "a.kdl")} -> ${nodePath.join(dir, "spec.kdl")}`,
    ])
  })

  it("reports a missing spec file or include", async () => {
    const dir = sandbox({ "spec.kdl": kdl('bin "x"', 'include file="nope.kdl"') })
    expect((await fileProblemsOf(nodePath.join(dir, "absent.kdl"))).map((p) => p.message)).toEqual([
      `cannot read ${nodePath.join(dir, "absent.kdl")}: no such file`,
    ])
    expect((await fileProblemsOf(nodePath.join(dir, "spec.kdl"))).map((p) => [p.line, p.message])).toEqual([
      [2, `cannot read included file ${nodePath.join(dir, "nope.kdl")}: no such file`],
    ])
  })
})
