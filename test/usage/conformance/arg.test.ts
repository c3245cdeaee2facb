import { describe, expect, it } from "vitest"
import { validateArgv } from "../../../src/usage/consume/index.js"
import { accepts, kdl, rejects } from "./helpers.js"

// `arg`: lib/src/spec/arg.rs (SpecArg::parse, From<&str> for SpecArg) and
// docs/spec/reference/arg.md.

const argsOf = (...lines: ReadonlyArray<string>) => accepts(kdl('bin "x"', ...lines)).root.args

describe("usage strings", () => {
  // arg.rs, From<&str>: strip `...`/`…`, then `[...]` (optional) or `<...>`, then `-- `
  // (double_dash required); a bare name is required.
  it.each([
    ["plugin", { name: "plugin", required: true, variadic: false }],
    ["<file>", { name: "file", required: true, variadic: false }],
    ["[file]", { name: "file", required: false }],
    ["<file>...", { name: "file", required: true, variadic: true }],
    ["[TOOL@VERSION]…", { name: "TOOL@VERSION", required: false, variadic: true }],
    ["[-- target]", { name: "target", required: false, double_dash: "required" }],
    ["<some name>", { name: "some name", required: true }],
  ])("reads %j", (usage, expected) => {
    expect(argsOf(`arg "${usage}"`)[0]).toMatchObject({ usage, ...expected })
  })

  it("rejects an argument with no name", () => {
    expect(rejects(kdl('bin "x"', 'arg "[]"'))).toEqual([
      'spec.kdl:2: x: arg "[]": "[]" has no name (write <name>, [name] or name)',
    ])
  })
})

describe("properties", () => {
  // arg.rs, SpecArg::parse: help, long_help/help_long, required, double_dash, var, var_min,
  // var_max, hide, default, env, effect; docs/spec/reference/arg.md adds `parse`.
  it("reads every property", () => {
    expect(
      argsOf(
        'arg "[file]" help="the file" help_long="the input file" required=#true',
        'arg "<files>" var=#true var_min=2 var_max=5 hide=#true env="FILES"',
        'arg "<out>" default="out.txt" double_dash="automatic" effect="write" parse="mycli parse {}"',
      ),
    ).toMatchObject([
      { help: "the file", long_help: "the input file", required: true },
      { variadic: true, var_min: 2, var_max: 5, hide: true, env: "FILES" },
      { default: "out.txt", required: false, double_dash: "automatic", effect: "write" },
    ])
  })

  // arg.rs: each property also as a child node; `default` as a block of several.
  it("takes properties as child nodes", () => {
    expect(
      argsOf(
        'arg "<input>" { help "Input file"; env "MY_INPUT"; long_help "more"; default { "a"; "b" }; }',
      )[0],
    ).toMatchObject({
      help: "Input file",
      env: "MY_INPUT",
      long_help: "more",
      default: "a",
      default_list: ["a", "b"],
    })
  })

  // arg.rs: "double_dash" is a SpecDoubleDashChoices (automatic, optional, required, preserve).
  it("rejects a double_dash value usage does not have", () => {
    expect(rejects(kdl('bin "x"', 'arg "<f>" double_dash="always"'))).toEqual([
      'spec.kdl:2: x: arg "<f>": double_dash "always" is not one of required, optional, automatic, preserve',
    ])
  })

  // lib/src/spec/complete.rs, parse_inline: "a complete inside an arg completes that arg".
  it("takes an inline complete for itself, and refuses one that names another", () => {
    const spec = accepts(kdl('bin "x"', 'arg "<Plugin>" { complete run="x plugins"; }'))
    expect(spec.root.complete).toEqual([{ name: "plugin", run: "x plugins", descriptions: false }])
    expect(rejects(kdl('bin "x"', 'arg "<p>" { complete "q" run="x"; }'))).toEqual([
      'spec.kdl:2: x: arg "<p>": complete: a complete inside an arg completes that arg, so it takes no name',
    ])
  })
})

describe("what validation makes of it", () => {
  const spec = accepts(
    kdl(
      'bin "x"',
      'cmd "copy" { arg "<files>" var=#true var_min=2 var_max=3; }',
      'cmd "deploy" { arg "[-- target]"; }',
      'cmd "run" { arg "<task>"; arg "[args]..." double_dash="automatic"; }',
    ),
  )
  const errors = (...argv: Array<string>) => {
    const r = validateArgv(spec, argv)
    return r.ok ? [] : r.errors
  }

  it("counts the values of a variadic argument", () => {
    expect(errors("copy", "a")).toEqual(["<files>: at least 2 values, got 1"])
    expect(errors("copy", "a", "b", "c", "d")).toEqual(["<files>: at most 3 values, got 4"])
    expect(errors("copy", "a", "b")).toEqual([])
  })

  it("takes a [-- name] argument only after --", () => {
    expect(errors("deploy", "--", "prod")).toEqual([])
    expect(errors("deploy", "prod")).toEqual(['<target>: "prod" must come after -- (x deploy -- prod)'])
  })

  // docs/spec/reference/arg.md: "once arg is passed, behave as if a double dash was passed".
  it("takes everything after an automatic argument's first value as values", () => {
    expect(errors("run", "build", "watch", "--release", "-x")).toEqual([])
    expect(errors("run", "build", "--release")).toEqual(['unknown flag --release for "x run"'])
  })
})
