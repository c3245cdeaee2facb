import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { validateArgv } from "../../../src/usage/consume/index.js"
import { formatUsageProblems, parseSpecFile } from "../../../src/usage/index.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// Forms usage (jdx/usage) accepts that were refused, and rules it enforces that were not. Each
// test names the usage source it reads: lib/src/spec/{config,cmd,choices,mount,flagset,arg,flag,
// group,mod}.rs and lib/src/help_template.rs, validation/src/lib.rs.

describe("config (config.rs)", () => {
  it("takes a prop's type, deprecated and the rest of its vocabulary, with children", () => {
    const spec = accepts(
      kdl(
        'bin "hk"',
        "config {",
        '  source "git" name="git config" doc_hint="git config `{key}`"',
        '  file "/etc/hk/config.pkl" scope="system"',
        '  file "hk.pkl" findup=#true scope="project"',
        '  prop "jobs" type="uint" default=4 deprecated="use --jobs" help_heading="Performance" merge="replace" scope="global" hide=#true since="1.2" {',
        '    env "HK_JOBS" "HK_JOB"',
        '    cli "--jobs" "-j"',
        '    source "git" "hk.jobs"',
        '    example "hk check --jobs 4"',
        '    x "mise.rust_type" "usize"',
        "  }",
        '  prop "stash" type="string" {',
        "    choices {",
        '      choice "git" help="Use `git stash`"',
        '      choice "patch-file"',
        "    }",
        "  }",
        '  prop "ports" type="list<int>" { default 80 443; }',
        "}",
      ),
    )
    const jobs = spec.config?.props.find((p) => p.key === "jobs")
    expect(jobs).toMatchObject({ key: "jobs", type: "uint", default: "4", deprecated: "use --jobs" })
    expect(jobs?.kept?.props).toContainEqual(["scope", "global"])
    expect(jobs?.kept?.nodes).toContain('env "HK_JOBS" "HK_JOB"')
    expect(spec.config?.files).toEqual([
      { path: "/etc/hk/config.pkl", scope: "system" },
      { path: "hk.pkl", findup: true, scope: "project" },
    ])
    expect(spec.config?.sources).toEqual([
      { kind: "git", name: "git config", doc_hint: "git config `{key}`" },
    ])
  })

  it("refuses what config.rs refuses, with the line of the node", () => {
    expect(
      rejects(
        kdl(
          'bin "x"',
          "config {",
          '  file "x" scope="elsewhere"',
          '  prop "a" merge="sideways"',
          '  prop "b" { prop "c"; }',
          '  file "y" { scope "global"; }',
          '  prop "d" type="integer" default="lots"',
          '  prop "e" { x "k" #null; }',
          "}",
        ),
      ),
    ).toEqual([
      'spec.kdl:3: config: file "x": scope "elsewhere" is not one of project, global, system',
      'spec.kdl:4: config: prop "a": merge "sideways" is not one of replace, union, deep',
      'spec.kdl:5: config: prop "b": prop "c": config props cannot nest; write the key as "b.c"',
      'spec.kdl:6: config: file "y": a config file takes properties, not a block',
      'spec.kdl:7: config: prop "d": config default "lots" cannot be read as the declared type `integer`',
      'spec.kdl:8: config: prop "e": x: an extension value cannot be #null; it would not round-trip',
    ])
  })

  // config.rs ValueError::IntegerOutOfRange: "config default does not fit in a 64-bit integer".
  it("refuses a default, list default or choice too large for a 64-bit integer", () => {
    const lines = rejects(
      kdl(
        'bin "x"',
        "config {",
        '  prop "a" default=9223372036854775808',
        '  prop "b" { default 1 99999999999999999999; }',
        '  prop "c" { choices { choice -9300000000000000000; }; }',
        '  prop "ok" default=9007199254740991',
        "}",
      ),
    )
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(
      /^spec\.kdl:3: config: prop "a": config default does not fit in a 64-bit integer/,
    )
    expect(lines[1]).toMatch(
      /^spec\.kdl:4: config: prop "b": default: config default does not fit in a 64-bit integer/,
    )
    expect(lines[2]).toMatch(
      /^spec\.kdl:5: config: prop "c": choices: choice .*: choice does not fit in a 64-bit integer/,
    )
  })
})

describe("cmd (cmd.rs)", () => {
  it("takes display_order, disable_help_flag and the other switches usage reads on a cmd", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'cmd "build" display_order=2 disable_help_flag=#true disable_version_flag=#true subcommand_value_name="STEP" term_width=100',
        'cmd "test" { display_order 1; disable_help_subcommand #true; flatten_help #true; }',
      ),
    )
    expect(at(spec, "build").kept?.props).toEqual([
      ["display_order", 2],
      ["disable_help_flag", true],
      ["disable_version_flag", true],
      ["subcommand_value_name", "STEP"],
      ["term_width", 100],
    ])
    expect(at(spec, "test").kept?.props).toContainEqual(["display_order", 1])
  })

  it("still checks their types", () => {
    expect(rejects(kdl('bin "x"', 'cmd "build" display_order=-1 disable_help_flag="yes"'))).toEqual([
      'spec.kdl:2: x: cmd "build": display_order must be a whole number (0 or more), got -1',
      'spec.kdl:2: x: cmd "build": disable_help_flag must be #true or #false, got "yes"',
    ])
  })
})

describe("choices env and strict (choices.rs)", () => {
  const spec = accepts(
    kdl(
      'bin "x"',
      'flag "--tool <tool>" { choices env="X_TOOLS"; }',
      'arg "<level>" { choices "low" "high" strict=#false; }',
    ),
  )
  const saved = process.env.X_TOOLS
  afterAll(() => {
    if (saved === undefined) delete process.env.X_TOOLS
    else process.env.X_TOOLS = saved
  })

  it("keeps them in the model", () => {
    expect(spec.root.flags[0]?.arg).toMatchObject({ choices: [], choices_env: "X_TOOLS" })
    expect(spec.root.args[0]).toMatchObject({ choices_strict: false })
  })

  it("checks a value against the variable's list, and not at all when not strict", () => {
    process.env.X_TOOLS = "node, python go"
    expect(validateArgv(spec, ["--tool", "python", "anything"])).toMatchObject({ ok: true })
    const bad = validateArgv(spec, ["--tool", "ruby", "medium"])
    expect(bad).toMatchObject({ ok: false, errors: ['--tool: "ruby" is not one of: node, python, go'] })
  })

  it("still needs values when there is no env, and strict is a boolean", () => {
    expect(
      rejects(
        kdl('bin "x"', 'arg "<a>" { choices strict=#false; }', 'arg "<b>" { choices "x" strict="no"; }'),
      ),
    ).toEqual([
      'spec.kdl:2: x: arg "<a>": choices: needs at least one value (choices "a" "b", a block of choice nodes, or env="VAR" naming a variable that lists them)',
      'spec.kdl:3: x: arg "<b>": choices: strict must be #true or #false, got "no"',
    ])
  })
})

describe("mount overrides_default (mount.rs)", () => {
  it("is kept, as a property or a child", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'mount run="x tasks" overrides_default=#true',
        'cmd "run" { mount { run "x more"; overrides_default #false; }; }',
      ),
    )
    expect(spec.root.mounts).toEqual([{ run: "x tasks", overrides_default: true }])
    expect(at(spec, "run").mounts).toEqual([{ run: "x more" }])
    expect(rejects(kdl('bin "x"', 'mount run="x" overrides_default="yes"'))).toEqual([
      'spec.kdl:2: x: mount: overrides_default must be #true or #false, got "yes"',
    ])
  })
})

describe("use of a flagset declared elsewhere (flagset.rs)", () => {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-r3-"))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  // flagset.rs a_shared_file_may_reach_a_spec_by_two_routes.
  it("takes one shared file reached by two includes as one declaration", () => {
    fs.mkdirSync(nodePath.join(dir, "cmds"))
    fs.writeFileSync(nodePath.join(dir, "common.usage.kdl"), 'flagset "common" {\n  flag "-v --verbose"\n}\n')
    for (const cmd of ["build", "test"])
      fs.writeFileSync(
        nodePath.join(dir, "cmds", `${cmd}.usage.kdl`),
        `include file="../common.usage.kdl"\ncmd "${cmd}" {\n  use "common"\n}\n`,
      )
    const root = nodePath.join(dir, "ex.usage.kdl")
    fs.writeFileSync(
      root,
      'bin "ex"\nuse "later"\ninclude file="./common.usage.kdl"\ninclude file="./cmds/build.usage.kdl"\ninclude file="./cmds/test.usage.kdl"\nflagset "later" { flag "--later"; }\n',
    )
    const result = Effect.runSync(Effect.either(parseSpecFile(root)))
    if (result._tag === "Left") throw new Error(formatUsageProblems(result.left.problems))
    expect(result.right.root.flags.map((f) => f.usage)).toEqual(["--later"])
    expect(at(result.right, "build").flags.map((f) => f.usage)).toEqual(["-v --verbose"])
    expect(at(result.right, "test").flags.map((f) => f.usage)).toEqual(["-v --verbose"])
  })

  // flagset.rs two_includes_may_not_declare_the_same_name: two declarations are still refused.
  it("still refuses two declarations of one name", () => {
    fs.writeFileSync(nodePath.join(dir, "a.usage.kdl"), 'flagset "output" { flag "--json"; }\n')
    fs.writeFileSync(nodePath.join(dir, "b.usage.kdl"), 'flagset "output" { flag "--yaml"; }\n')
    const root = nodePath.join(dir, "two.usage.kdl")
    fs.writeFileSync(root, 'bin "ex"\ninclude file="./a.usage.kdl"\ninclude file="./b.usage.kdl"\n')
    const result = Effect.runSync(Effect.either(parseSpecFile(root)))
    expect(result._tag === "Left" && formatUsageProblems(result.left.problems)).toMatch(
      /b\.usage\.kdl:1: flagset "output": a flagset may be declared only once/,
    )
  })
})
