import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  completionScript,
  describeCommand,
  markdownDocs,
  validateArgv,
} from "../../../src/usage/consume/index.js"
import { parseSpecFile } from "../../../src/usage/index.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// `flagset` and `use`: lib/src/spec/flagset.rs (its tests name each rule below) and
// docs/spec/reference/flagset.md.

const usages = (flags: ReadonlyArray<{ readonly usage: string }>) => flags.map((f) => f.usage)

describe("expansion", () => {
  // flagset.rs test a_set_expands_where_the_use_stands.
  it("puts a set's flags where the use stands", () => {
    const spec = accepts(
      kdl(
        'bin "ex"',
        'flagset "output" {',
        '  flag "-v --verbose" help="Print more"',
        '  flag "--json" help="JSON output"',
        "}",
        'cmd "build" {',
        '  flag "--release"',
        '  use "output"',
        '  flag "--target <triple>"',
        "}",
      ),
    )
    expect(usages(at(spec, "build").flags)).toEqual([
      "--release",
      "-v --verbose",
      "--json",
      "--target <triple>",
    ])
  })

  // flagset.rs test one_use_names_several_sets_and_the_root_can_use_them_too.
  it("lets one use name several sets, at the root, declared below it", () => {
    const spec = accepts(
      kdl(
        'bin "ex"',
        'use "logging" "output"',
        'flagset "logging" { flag "-v --verbose" global=#true; }',
        'flagset "output" { flag "--json"; }',
        'cmd "build"',
      ),
    )
    expect(usages(spec.root.flags)).toEqual(["-v --verbose", "--json"])
    // A set's global flag is inherited like any other (a_global_from_a_set_is_inherited_like_any_other).
    expect(usages(at(spec, "build").flags)).toEqual(["-v --verbose"])
  })

  // flagset.rs tests a_set_composes_other_sets_and_a_diamond_contributes_once and
  // the_commands_own_declaration_wins and a_short_form_collision_counts_as_the_same_flag.
  it("composes sets, contributes a flag reached twice once, and lets the command's own win", () => {
    const spec = accepts(
      kdl(
        'bin "ex"',
        'flagset "common" { flag "-v --verbose"; flag "-j --jobs <n>"; }',
        'flagset "output" { use "common"; flag "--json" help="set"; }',
        'flagset "input" { use "common"; flag "--stdin"; }',
        'cmd "run" { use "output" "input"; }',
        'cmd "build" { use "output"; flag "--json" help="own"; flag "-j --job-count <n>"; }',
      ),
    )
    expect(usages(at(spec, "run").flags)).toEqual(["-v --verbose", "-j --jobs <n>", "--json", "--stdin"])
    expect(at(spec, "build").flags.map((f) => [f.usage, f.help])).toEqual([
      ["-v --verbose", undefined],
      ["--json", "own"],
      ["-j --job-count <n>", undefined],
    ])
  })

  // flagset.rs test an_included_file_can_hold_the_shared_sets.
  it("takes sets from an included file", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-flagset-"))
    fs.writeFileSync(nodePath.join(dir, "common.usage.kdl"), kdl('flagset "common" { flag "-v --verbose"; }'))
    fs.writeFileSync(
      nodePath.join(dir, "ex.kdl"),
      kdl('bin "ex"', 'include file="common.usage.kdl"', 'cmd "build" { use "common"; }'),
    )
    try {
      const spec = Effect.runSync(parseSpecFile(nodePath.join(dir, "ex.kdl")))
      expect(usages(spec.root.subcommands[0]!.flags)).toEqual(["-v --verbose"])
    } finally {
      fs.rmSync(dir, { recursive: true })
    }
  })

  // flagset.rs test the_flags_a_set_brought_parse_like_any_other; issue 17: describe, docs,
  // completions and validation all see them.
  it("gives every tool the flags of the sets a command uses", () => {
    const spec = accepts(
      kdl(
        'bin "ex"',
        'flagset "common" { flag "-j --jobs <n>" help="parallel jobs"; }',
        'cmd "build" { use "common"; }',
      ),
    )
    const build = describeCommand(spec, ["build"])
    expect(build.ok && build.command.flags.map((f) => f.names)).toEqual([["-j", "--jobs"]])
    expect(markdownDocs(spec).get("build.md")).toContain("| `-j, --jobs <n>` | parallel jobs. |")
    expect(completionScript(spec, "bash")).toContain("'--jobs'")
    expect(validateArgv(spec, ["build", "--jobs", "4"]).ok).toBe(true)
  })
})

describe("mistakes", () => {
  // flagset.rs tests an_unknown_set_says_what_is_declared and a_use_with_no_sets_at_all_says_so.
  it("names an unknown set, with the ones declared", () => {
    expect(
      rejects(kdl('bin "ex"', 'flagset "output" { flag "--json"; }', 'cmd "build" { use "outupt"; }')),
    ).toEqual(['spec.kdl:3: use "outupt": unknown flagset "outupt" (declared: output)'])
    expect(rejects(kdl('bin "ex"', 'cmd "build" { use "output"; }'))).toEqual([
      'spec.kdl:2: use "output": unknown flagset "output" (no flagsets are declared)',
    ])
  })

  // flagset.rs tests a_cycle_is_reported_as_the_path_that_closes_it and
  // a_set_that_uses_itself_is_the_same_error, a_set_nothing_uses_is_still_resolved.
  it("reports a cycle, a set using itself, and a mistake in a set nothing uses", () => {
    expect(
      rejects(
        kdl('bin "ex"', 'flagset "a" { use "b"; }', 'flagset "b" { use "a"; }', 'cmd "build" { use "a"; }'),
      ),
    ).toEqual(['spec.kdl:2: flagset "a": flagset cycle: a -> b -> a'])
    expect(rejects(kdl('bin "ex"', 'flagset "a" { use "a"; }', 'use "a"'))).toEqual([
      'spec.kdl:2: flagset "a": flagset cycle: a -> a',
    ])
    expect(rejects(kdl('flagset "a" { use "missing"; }'))).toEqual([
      'spec.kdl:1: use "missing": unknown flagset "missing" (declared: a)',
    ])
  })

  // flagset.rs test a_name_may_be_declared_once.
  it("takes a name once", () => {
    expect(
      rejects(kdl('flagset "output" { flag "--json"; }', 'flagset "output" { flag "--yaml"; }')),
    ).toEqual(['spec.kdl:2: flagset "output": a flagset may be declared only once ("output")'])
  })

  // flagset.rs tests a_set_holds_flags_and_says_so_about_arguments,
  // a_set_rejects_what_it_has_no_meaning_for and a_use_names_sets_and_nothing_else.
  it("holds flags and uses only, and use names sets and holds nothing", () => {
    expect(
      rejects(
        kdl(
          'flagset "output" help="a set" {',
          '  arg "<file>"',
          '  cmd "nested"',
          "}",
          'use "output" { flag "--json"; }',
          'use from="o"',
        ),
      ),
    ).toEqual([
      'spec.kdl:1: flagset "output": unknown property help="a set" (flagset takes none)',
      'spec.kdl:2: arg "<file>": a flagset holds flags, not arguments: declare the argument on each command that takes it',
      'spec.kdl:3: cmd "nested": unknown child node "cmd" (a flagset holds flag and use)',
      'spec.kdl:5: use "output": use names flagsets and holds nothing: declare the flags in the flagset itself',
      'spec.kdl:6: use: unknown property from="o" (use takes none)',
      'spec.kdl:6: use: use needs the name of at least one flagset (use "output")',
    ])
  })

  // cmd.rs has no `flagset`: sets are declared at the top level only.
  it("is declared at the top level only", () => {
    expect(rejects(kdl('bin "ex"', 'cmd "a" { flagset "x" { flag "--y"; }; }'))[0]).toContain(
      'unknown child node "flagset"',
    )
  })
})
