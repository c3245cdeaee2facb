import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { formatUsageProblems, parseSpecFile } from "../../../src/usage/index.js"
import { writeSpec } from "../../../src/usage/writer.js"
import { accepts, at, kdl } from "./helpers.js"

// `spec fmt` round-trips (issue 17): parsing its output gives the same model, and formatting
// that again changes nothing. usage's own writer does the same (lib/src/spec/mod.rs, Display
// for Spec, and its tests such as codes_survive_a_round_trip in lib/src/spec/exit_code.rs).
// `accepts` checks both for every spec of this suite; these are the cases that used to break.

describe("spec fmt", () => {
  it("keeps a command's restatement of an inherited global flag where the command put it", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'flag "-v --verbose" global=#true',
        'flag "-q --quiet" global=#true',
        'cmd "a" {',
        '  flag "-v --verbose" global=#true',
        '  flag "--only"',
        "}",
      ),
    )
    expect(at(spec, "a").flags.map((f) => f.usage)).toEqual(["-v --verbose", "--only", "-q --quiet"])
    expect(writeSpec(spec)).toContain('cmd "a" {\n  flag "-v --verbose" global=#true\n  flag "--only"\n}')
  })

  it("does not repeat an inherited global restated last, as the resolver appends it there anyway", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'flag "-v --verbose" global=#true',
        'cmd "a" { flag "--only"; flag "-v --verbose" global=#true; }',
      ),
    )
    expect(writeSpec(spec)).toContain('cmd "a" {\n  flag "--only"\n}')
  })

  it("writes what usage keeps, and what supervisor acts on, back", () => {
    accepts(
      kdl(
        'bin "x"',
        "disable_help #true",
        'flag "--color" negate="--no-color" env="C" deprecated="old" { alias "--colour" hide=#true; default_if "--ci" "never"; }',
        'flag "--tag <T>" { arg "[T]" { choices ignore_case=#true { choice "a" help="first" { alias "aa"; }; choice "b" hide=#true; }; }; default { "a"; "b" }; }',
        'arg "[-- rest]..." var_min=1 help_md="*rest*"',
        'complete "rest" run="x list"',
        'cmd "c" effect="write" restart_token=":::" { alias "cc" hide=#true; mount run="x mount"; group "g" "--tag" "--other"; }',
        'view "v" root="c"',
      ),
    )
  })

  it("flattens includes and expands flagsets, so its output stands alone", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-fmt-"))
    fs.writeFileSync(nodePath.join(dir, "common.kdl"), kdl('flagset "common" { flag "-v --verbose"; }'))
    fs.writeFileSync(
      nodePath.join(dir, "x.kdl"),
      kdl('bin "x"', 'include file="common.kdl"', 'cmd "a" { use "common"; }'),
    )
    try {
      const spec = Effect.runSync(parseSpecFile(nodePath.join(dir, "x.kdl")))
      expect(writeSpec(spec)).toBe(kdl('bin "x"', 'cmd "a" {', '  flag "-v --verbose"', "}"))
    } finally {
      fs.rmSync(dir, { recursive: true })
    }
  })
})

describe("problem lists", () => {
  it("report one problem per cause and line, however often it was found", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-dedupe-"))
    fs.writeFileSync(nodePath.join(dir, "shared.kdl"), kdl('flag "--bad" colour="red"'))
    fs.writeFileSync(
      nodePath.join(dir, "x.kdl"),
      kdl('bin "x"', 'cmd "a" { include file="shared.kdl"; }', 'cmd "b" { include file="shared.kdl"; }'),
    )
    try {
      const problems = Effect.runSync(Effect.flip(parseSpecFile(nodePath.join(dir, "x.kdl")))).problems
      expect(formatUsageProblems(problems).split("\n")).toEqual([
        expect.stringContaining(
          'shared.kdl:1: x a: flag "--bad": unknown property colour="red" (not a property of a flag',
        ),
      ])
    } finally {
      fs.rmSync(dir, { recursive: true })
    }
  })
})
