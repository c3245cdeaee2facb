import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { parseSpecString } from "../../src/usage/index.js"
import { Spec } from "../../src/usage/model.js"
import { commandAt, errorsOf, kdl, parseOk, problemsOf } from "./fixtures/parse/helpers.js"

describe("metadata", () => {
  it.effect("reads name, bin, version, about, long_about, author, license", () =>
    Effect.gen(function* () {
      const spec = yield* parseSpecString(
        kdl(
          'name "Supervisor"',
          'bin "supervisor"',
          'version "1.2.0"',
          'about "runs daemons"',
          'long_about "Runs a project\'s daemons"',
          'author "Ann"',
          'license "MIT"',
        ),
      )
      expect(spec).toMatchObject({
        name: "Supervisor",
        bin: "supervisor",
        version: "1.2.0",
        about: "runs daemons",
        long_about: "Runs a project's daemons",
        author: "Ann",
        license: "MIT",
        sources: [],
        passthrough: [],
      })
      expect(spec.root).toMatchObject({ name: "supervisor", path: [], hide: false, aliases: [] })
      // The result is the model every consumer reads.
      expect(Schema.is(Spec)(spec)).toBe(true)
    }),
  )

  it("falls back to name when bin is missing", async () => {
    expect((await parseOk(kdl('name "tool"'))).bin).toBe("tool")
  })

  // lib/src/spec/mod.rs (Spec::parse_file): bin defaults to the file's name; from a string, none.
  it("needs neither bin nor name: a spec from a string then names no program", async () => {
    const spec = await parseOk(kdl('arg "<name>"'))
    expect(spec.bin).toBe("")
    expect(spec.root.args.map((a) => a.name)).toEqual(["name"])
  })
})

describe("flag", () => {
  const flagOf = async (line: string) => (await parseOk(kdl('bin "x"', line))).root.flags[0]!

  it("parses the spec string into long and short names and the value", async () => {
    expect(await flagOf('flag "-f --format <FMT>"')).toEqual({
      usage: "-f --format <FMT>",
      long: ["format"],
      short: ["f"],
      help: undefined,
      global: false,
      hide: false,
      variadic: false,
      arg: { name: "FMT", required: true, choices: undefined },
      default: undefined,
    })
    expect(await flagOf('flag "-v --verbose --loud"')).toMatchObject({
      long: ["verbose", "loud"],
      short: ["v"],
    })
    expect((await flagOf('flag "--level [LVL]"')).arg).toMatchObject({ name: "LVL", required: false })
    expect((await flagOf('flag "-o,--out=<PATH>"')).arg).toMatchObject({ name: "PATH" })
    expect((await flagOf('flag "--verbose"')).arg).toBeUndefined()
  })

  it("takes help as the second argument or help=", async () => {
    expect((await flagOf('flag "--json" "print JSON"')).help).toBe("print JSON")
    expect((await flagOf('flag "--json" help="print JSON"')).help).toBe("print JSON")
    expect((await flagOf('flag "--json" { help "print JSON"; }')).help).toBe("print JSON")
  })

  it("reads global, hide, var and default", async () => {
    expect(await flagOf('flag "-t --tag <T>" global=#true hide=#true var=#true default="a"')).toMatchObject({
      global: true,
      hide: true,
      variadic: true,
      default: "a",
    })
    expect((await flagOf('flag "--jobs <N>" default=4')).default).toBe("4")
    expect((await flagOf('flag "--tag <T>..."')).variadic).toBe(true)
  })

  it("takes its value from a child arg", async () => {
    expect((await flagOf('flag "--format" { arg "<FMT>"; }')).arg).toEqual({
      name: "FMT",
      required: true,
      choices: undefined,
    })
  })

  it("takes choices in shorthand form", async () => {
    expect((await flagOf('flag "--shell <S>" { choices "bash" "zsh"; }')).arg?.choices).toEqual([
      { value: "bash" },
      { value: "zsh" },
    ])
  })

  it("takes choices in block form, each with its help", async () => {
    const flag = await flagOf(
      'flag "--shell <S>" { choices { choice "bash" help="GNU bash"; choice "zsh"; }; }',
    )
    expect(flag.arg?.choices).toEqual([{ value: "bash", help: "GNU bash" }, { value: "zsh" }])
  })

  it("takes choices under a child arg", async () => {
    expect((await flagOf('flag "--shell" { arg "<S>" { choices "fish"; }; }')).arg?.choices).toEqual([
      { value: "fish" },
    ])
  })
})

describe("arg", () => {
  const argsOf = async (...lines: Array<string>) => (await parseOk(kdl('bin "x"', ...lines))).root.args

  it("reads <x>, [x] and <x>...", async () => {
    expect(
      await argsOf('arg "<file>" "the input"', 'arg "[out]"', 'arg "<rest>..."', 'arg "[more]" var=#true'),
    ).toEqual([
      {
        name: "file",
        usage: "<file>",
        required: true,
        variadic: false,
        help: "the input",
        choices: undefined,
      },
      { name: "out", usage: "[out]", required: false, variadic: false, help: undefined, choices: undefined },
      {
        name: "rest",
        usage: "<rest>...",
        required: true,
        variadic: true,
        help: undefined,
        choices: undefined,
      },
      { name: "more", usage: "[more]", required: false, variadic: true, help: undefined, choices: undefined },
    ])
  })

  it("reads help= and choices", async () => {
    expect(await argsOf('arg "<shell>" help="a shell" { choices "bash" "zsh"; }')).toMatchObject([
      { help: "a shell", choices: [{ value: "bash" }, { value: "zsh" }] },
    ])
  })
})

describe("cmd", () => {
  it("nests commands with aliases, hide, help and long_help", async () => {
    const spec = await parseOk(
      kdl(
        'bin "supervisor"',
        'cmd "daemons" help="manage daemons" {',
        '  alias "d" "ds"',
        '  cmd "start" hide=#true long_help="Starts the daemons given" {',
        '    alias "up"',
        "  }",
        "}",
        'cmd "status" {',
        '  help "show status"',
        '  long_help "Shows every daemon"',
        "}",
      ),
    )
    expect(commandAt(spec, "daemons")).toMatchObject({
      name: "daemons",
      path: ["daemons"],
      aliases: ["d", "ds"],
      help: "manage daemons",
      hide: false,
    })
    expect(commandAt(spec, "daemons", "start")).toMatchObject({
      path: ["daemons", "start"],
      aliases: ["up"],
      hide: true,
      long_help: "Starts the daemons given",
    })
    expect(commandAt(spec, "status")).toMatchObject({ help: "show status", long_help: "Shows every daemon" })
  })
})

describe("example and passthrough", () => {
  it("reads examples with header and help", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'example "x run" header="Run it" help="runs"', 'example "x stop"'),
    )
    expect(spec.root.examples).toEqual([
      { code: "x run", header: "Run it", help: "runs" },
      { code: "x stop", header: undefined, help: undefined },
    ])
  })

  it("reads complete, mount and usage, and keeps group nodes as KDL text, never dropping them", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'usage "x [flags]"',
        'complete "id" run="x list" descriptions=#true',
        'cmd "a" {',
        '  complete "plugin" run="x plugins"',
        '  mount run="x mount"',
        '  group "output" "--json" "--yaml" required=#true',
        "}",
      ),
    )
    expect(spec.usage).toBe("x [flags]")
    expect(spec.root.complete).toEqual([{ name: "id", run: "x list", descriptions: true }])
    expect(commandAt(spec, "a").complete).toEqual([
      { name: "id", run: "x list", descriptions: true },
      { name: "plugin", run: "x plugins", descriptions: false },
    ])
    expect(commandAt(spec, "a").mounts).toEqual([{ run: "x mount" }])
    expect(commandAt(spec, "a").passthrough).toEqual([
      { kdl: 'group "output" "--json" "--yaml" required=#true' },
    ])
  })
})

describe("output, select and exit_code nodes", () => {
  it("reads every output property, and help as a child", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "--json"',
        'output "text" default=#true help="for people"',
        'output "json" media_type="application/json" framing="json" select="--json" {',
        '  help "one document"',
        '  schema "{}"',
        "}",
        'output "ndjson" framing="jsonl"',
        'output "xml" media_type="application/xml"',
      ),
    )
    expect(spec.root.outputs).toEqual([
      {
        name: "text",
        media_type: undefined,
        framing: "text",
        help: "for people",
        default: true,
        selector: null,
        schema: undefined,
        schema_file: undefined,
      },
      {
        name: "json",
        media_type: "application/json",
        framing: "json",
        help: "one document",
        default: false,
        selector: { kind: "present", flag: "--json" },
        schema: "{}",
        schema_file: undefined,
      },
      expect.objectContaining({ name: "ndjson", framing: "jsonl", media_type: undefined }),
      // Framing is not inferred from the media type.
      expect.objectContaining({ name: "xml", framing: "text", media_type: "application/xml" }),
    ])
  })

  it("select fills the value flag's choices and gives each output a value selector", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'flag "-f --format <F>"', 'output "text" help="plain"', 'output "json"', 'select "-f"'),
    )
    expect(spec.root.select).toBe("--format")
    expect(spec.root.flags[0]!.arg!.choices).toEqual([{ value: "text", help: "plain" }, { value: "json" }])
    expect(spec.root.outputs.map((o) => o.selector)).toEqual([
      { kind: "value", flag: "--format", value: "text" },
      { kind: "value", flag: "--format", value: "json" },
    ])
  })

  it("keeps the flag's own choice help over the output's", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"',
        'flag "--format <F>" { choices { choice "json" help="flag help"; choice "text"; }; }',
        'output "text" help="output help"',
        'output "json" help="json output"',
        'select "--format"',
      ),
    )
    expect(spec.root.flags[0]!.arg!.choices).toEqual([
      { value: "text", help: "output help" },
      { value: "json", help: "flag help" },
    ])
  })

  it("reads exit codes in order", async () => {
    const spec = await parseOk(
      kdl('bin "x"', 'exit_code 0 "ok"', 'exit_code 0x2 "usage"', 'exit_code 130 "interrupted"'),
    )
    expect(spec.root.exit_codes).toEqual([
      { code: 0, description: "ok" },
      { code: 2, description: "usage" },
      { code: 130, description: "interrupted" },
    ])
  })
})

describe("KDL 2 syntax", () => {
  it("accepts #true/#false, raw strings, ; separators and /- comments", async () => {
    const spec = await parseOk(
      kdl(
        'bin "x"; version #"1.0 "beta""#',
        'flag "--a" global=#true hide=#false',
        '/-flag "--gone"',
        'flag "--b" /-hide=#true',
        'cmd "c" /-{ flag "--x"; }',
        '/* block */ output #"""',
        '  json "pretty"',
        '  """# framing="json"',
        'cmd "d" \\',
        '  help="continued"',
      ),
    )
    expect(spec.version).toBe('1.0 "beta"')
    expect(spec.root.flags.map((f) => [f.usage, f.global, f.hide])).toEqual([
      ["--a", true, false],
      ["--b", false, false],
    ])
    expect(commandAt(spec, "c").flags.map((f) => f.usage)).toEqual(["--a"])
    expect(spec.root.outputs[0]).toMatchObject({ name: 'json "pretty"', framing: "json" })
    expect(commandAt(spec, "d").help).toBe("continued")
  })

  it("reports KDL 1 booleans with the KDL 2 spelling", async () => {
    expect(await errorsOf(kdl('bin "x"', 'flag "--a" global=true'))).toEqual([
      'spec.kdl:2: KDL syntax error: unexpected "true" (KDL 2 writes #true, or "true" for the text)',
    ])
  })

  it("reports an unclosed block at the end of the file", async () => {
    expect(await errorsOf(kdl('bin "x"', 'cmd "a" {'))).toEqual([
      "spec.kdl:3: KDL syntax error: unexpected end of input (a { block is not closed)",
    ])
  })

  it("gives each problem the line of its node, past comments, multi-line strings and /- nodes", async () => {
    const problems = await problemsOf(
      kdl(
        'bin "x"',
        "// comment",
        'about """',
        "  many",
        "  lines",
        '  """',
        '/-cmd "gone" {',
        '  output "skipped" framing="bad"',
        "}",
        "/* a",
        "   block */",
        'cmd "a" {',
        '  exit_code 300 "too big"',
        "}",
      ),
    )
    expect(problems.map((p) => [p.line, p.path, p.node])).toEqual([[13, ["x", "a"], "exit_code 300"]])
  })
})
