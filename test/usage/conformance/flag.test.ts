import { describe, expect, it } from "vitest"
import { validateArgv } from "../../../src/usage/consume/index.js"
import { accepts, kdl, rejects } from "./helpers.js"

// `flag`: lib/src/spec/flag.rs (SpecFlag::parse, FromStr for SpecFlag) and
// docs/spec/reference/flag.md.

const flagOf = (...lines: ReadonlyArray<string>) => accepts(kdl('bin "x"', ...lines)).root.flags[0]!

describe("usage strings", () => {
  // flag.rs, FromStr: `-s`, `--long`, `name:`, `<arg>`/`[arg]`, and `...`/`…` after the names
  // (the flag repeats) or after the value; docs/spec/reference/flag.md shows each form.
  it.each([
    ["-f --force", { short: ["f"], long: ["force"], variadic: false, arg: undefined }],
    [
      "--include <pattern>...",
      { long: ["include"], variadic: true, arg: { name: "pattern", required: true } },
    ],
    ["--include... <pattern>", { long: ["include"], variadic: true, arg: { name: "pattern" } }],
    ["-f --flag <arg>…", { variadic: true, arg: { name: "arg" } }],
    ["--level [LVL]", { arg: { name: "LVL", required: false } }],
    ["color: --color", { name: "color", long: ["color"] }],
    ["myflag: -f --flag <arg>", { name: "myflag", short: ["f"], long: ["flag"], arg: { name: "arg" } }],
  ])("reads %j", (usage, expected) => {
    expect(flagOf(`flag "${usage}"`)).toMatchObject({ usage, ...expected })
  })

  // flag.rs, FromStr: a short flag is one character ("InvalidFlag" otherwise).
  it("rejects a short flag of more than one character, and words that are not names", () => {
    expect(rejects(kdl('bin "x"', 'flag "-ab"', 'flag "--x y"'))).toEqual([
      'spec.kdl:2: x: flag "-ab": "-ab" in flag "-ab" is not a short flag (one character after -)',
      'spec.kdl:3: x: flag "--x y": unexpected "y" in flag "--x y" (expected -x, --name, name: and one <VALUE> or [VALUE])',
    ])
  })
})

describe("properties", () => {
  // flag.rs, SpecFlag::parse: help, long_help/help_long, required, var, hide, deprecated
  // (#true or a reason), global, count, default (string or boolean), negate, env, overrides,
  // conflicts, exclusive, effect.
  it("reads every property supervisor acts on", () => {
    expect(
      flagOf(
        'flag "-v --verbose" help="more" long_help="much more" global=#true count=#true hide=#true',
        'flag "--color" negate="--no-color" default=#true env="MYCLI_COLOR" deprecated="use --colour"',
      ),
    ).toMatchObject({ help: "more", long_help: "much more", global: true, count: true, hide: true })
    expect(
      accepts(
        kdl(
          'bin "x"',
          'flag "--color" negate="--no-color" default=#true env="MYCLI_COLOR" deprecated=#true',
          'flag "--user <U>" required=#true help_long="who" conflicts="--anon" overrides="--stdin"',
          'flag "--version" exclusive=#true effect="read"',
        ),
      ).root.flags,
    ).toMatchObject([
      {
        negate: "--no-color",
        default: "true",
        env: "MYCLI_COLOR",
        deprecated: "deprecated",
        required: undefined,
      },
      { required: true, long_help: "who", conflicts: ["--anon"], overrides: ["--stdin"] },
      { exclusive: true, effect: "read" },
    ])
  })

  // flag.rs: "if !flag.default.is_empty() { flag.required = false }".
  it("a default makes a required flag optional", () => {
    expect(flagOf('flag "--n <N>" required=#true default="1"').required).toBeUndefined()
  })

  // flag.rs: every property may also be a child node with one value (`long_help "..."`).
  it("takes properties as child nodes", () => {
    expect(
      flagOf(
        'flag "--file <file>" {',
        '  help "the file"',
        '  long_help """',
        "    longer help",
        "    for --help",
        '    """',
        '  env "MY_FILE"',
        '  default "file.txt"',
        "  required #true",
        '  conflicts "--stdin" "--url"',
        "}",
      ),
    ).toMatchObject({
      help: "the file",
      long_help: "longer help\nfor --help",
      env: "MY_FILE",
      default: "file.txt",
      conflicts: ["--stdin", "--url"],
    })
  })

  // flag.rs, child "default": `default { "xyz"; "bar" }` is several values.
  it("takes several defaults as a block", () => {
    expect(flagOf('flag "--tag <T>" var=#true { default { "a"; "b" }; }')).toMatchObject({
      default: "a",
      default_list: ["a", "b"],
    })
  })

  // flag.rs reads these and supervisor keeps them (docs/usage-spec.md): written back as given.
  it("keeps the relations and switches it does not act on", () => {
    const flag = flagOf(
      'flag "--out <F>" requires="--format" help_heading="Output" hide_env=#true var_min=1 builtin=#true {',
      '  default_if "--json" "out.json"',
      '  requires_if "special.toml" "--key"',
      "}",
    )
    expect(flag.kept).toEqual({
      props: [
        ["requires", "--format"],
        ["help_heading", "Output"],
        ["hide_env", true],
        ["var_min", 1],
        ["builtin", true],
      ],
      nodes: ['default_if "--json" "out.json"', 'requires_if "special.toml" "--key"'],
    })
  })

  // flag.rs: `k => bail_parse!(..., "unsupported flag key {k}")`; ensure_bool/ensure_string.
  it("rejects an unknown property, or a value of the wrong type, naming it", () => {
    expect(rejects(kdl('bin "x"', 'flag "--a" requird=#true global="yes" effect="readonly"'))).toEqual([
      'spec.kdl:2: x: flag "--a": unknown property requird=#true (did you mean required?)',
      'spec.kdl:2: x: flag "--a": global must be #true or #false, got "yes"',
      'spec.kdl:2: x: flag "--a": effect "readonly" is not one of read, write, destructive',
    ])
  })

  // flag.rs: `k => bail_parse!(..., "unsupported flag child {k}")`.
  it("rejects an unknown child node", () => {
    expect(rejects(kdl('bin "x"', 'flag "--a" { choises "x"; }'))).toEqual([
      'spec.kdl:2: x: flag "--a": unknown child node "choises" (did you mean choices?)',
    ])
  })
})

describe("the value", () => {
  // flag.rs, child "arg": the child arg is the flag's value, and its choices are the flag's.
  it("is given inline and restated as a child arg carrying choices (not a conflict)", () => {
    expect(flagOf('flag "--format <FMT>" { arg "<FMT>" { choices "human" "json"; }; }').arg).toEqual({
      name: "FMT",
      required: true,
      choices: [{ value: "human" }, { value: "json" }],
    })
  })

  it("is given by a child arg alone", () => {
    expect(flagOf('flag "-C --cd" { arg "<DIR>"; }').arg).toMatchObject({ name: "DIR", required: true })
  })

  // flag.rs: "flag must have value to have choices".
  it("must exist for the flag to have choices", () => {
    expect(rejects(kdl('bin "x"', 'flag "--shell" { choices "bash"; }'))).toEqual([
      'spec.kdl:2: x: flag "--shell": choices: a flag must take a value to have choices (add <VALUE> to its usage, or a child arg)',
    ])
  })
})

describe("aliases", () => {
  // flag.rs, child "alias": more names; `hide=#true` ones parse but are not offered.
  it("adds names, hidden ones accepted but not listed", () => {
    const spec = accepts(kdl('bin "x"', 'flag "--user <U>" { alias "-u"; alias "--login" hide=#true; }'))
    expect(spec.root.flags[0]).toMatchObject({
      short: ["u"],
      long: ["user", "login"],
      hidden_names: ["--login"],
    })
    expect(validateArgv(spec, ["--login", "me"]).ok).toBe(true)
  })

  it("rejects an alias that is not a flag name", () => {
    expect(rejects(kdl('bin "x"', 'flag "--user" { alias "user"; }'))).toEqual([
      'spec.kdl:2: x: flag "--user": alias: "user" is not a flag name (a flag alias begins with - or --; a short one is one character)',
    ])
  })
})

describe("what validation makes of it", () => {
  const spec = accepts(
    kdl(
      'bin "x"',
      'flag "--color" negate="--no-color"',
      'flag "-v --verbose" count=#true',
      'flag "--user <U>" required=#true',
      'flag "--token <T>" required=#true env="TOKEN"',
      'flag "--json" conflicts="--yaml"',
      'flag "--yaml"',
      'flag "--version" exclusive=#true',
    ),
  )
  const errors = (...argv: Array<string>) => {
    const r = validateArgv(spec, argv)
    return r.ok ? [] : r.errors
  }

  it("accepts the negation, repeated counts, and an env var standing in for a required flag", () => {
    expect(errors("--user", "me", "--no-color", "-vvv", "--verbose")).toEqual([])
  })

  it("reports a missing required flag, a conflict and a flag that must be alone", () => {
    expect(errors("--json", "--yaml")).toEqual([
      "missing required flag --user",
      "--json cannot be used with --yaml",
    ])
    expect(errors("--user", "me", "--version")).toEqual(["--version must be given alone"])
  })
})
