import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { cliSpec, cliSpecKdl, type Extras, unknownExtraPaths } from "../../../src/cli/usageSpec/cliSpec.js"
import { readCliTree } from "../../../src/cli/usageSpec/effectCli.js"
import { validateArgv } from "../../../src/usage/consume/index.js"
import { parseSpecString } from "../../../src/usage/index.js"

// A small hand-made @effect/cli program: flags with aliases, a choice with a default, an
// optional and a repeated value flag, a negatable boolean, required/optional/repeated args,
// and nested subcommands.
const build = Command.make("build", {
  format: Options.choice("format", ["text", "json"]).pipe(
    Options.withAlias("f"),
    Options.withDescription("output format"),
    Options.withDefault("text" as const),
  ),
  out: Options.text("out").pipe(Options.withAlias("o"), Options.optional),
  tags: Options.text("tag").pipe(Options.withDescription("a tag, repeatable"), Options.repeated),
  jobs: Options.integer("jobs").pipe(Options.withDefault(4)),
  cache: Options.boolean("cache", { negationNames: ["no-cache"] }),
  target: Args.text({ name: "target" }).pipe(Args.withDescription("what to build")),
  mode: Args.choice([
    ["debug", "debug"],
    ["release", "release"],
  ]).pipe(Args.optional),
  files: Args.text({ name: "file" }).pipe(Args.repeated),
})
const add = Command.make("add", { url: Args.text({ name: "url" }) }).pipe(
  Command.withDescription("add a remote"),
)
const remote = Command.make("remote").pipe(
  Command.withDescription("manage remotes"),
  Command.withSubcommands([add, Command.make("list", { json: Options.boolean("json") })]),
)
const tool = Command.make("tool", {
  verbose: Options.boolean("verbose").pipe(Options.withAlias("v"), Options.withDescription("more output")),
}).pipe(Command.withDescription("a small tool"), Command.withSubcommands([build, remote]))

const extras: Extras = {
  root: {
    outputs: [{ name: "text", framing: "text", help: "text", default: true }],
    exit_codes: [{ code: 0, description: "ok" }],
  },
  commands: {
    "remote list": {
      outputs: [
        { name: "json", framing: "json", media_type: "application/json", help: "remotes", select: "--json" },
      ],
      exit_codes: [{ code: 3, description: "no remotes" }],
    },
  },
  aliases: { "remote list": ["ls"] },
}

describe("readCliTree", () => {
  const tree = readCliTree(tool)

  it("reads names, descriptions and nested subcommands", () => {
    expect(tree.name).toBe("tool")
    expect(tree.help).toBe("a small tool")
    expect(tree.subcommands.map((s) => s.name)).toEqual(["build", "remote"])
    expect(tree.subcommands[1]!.subcommands.map((s) => [s.name, s.help])).toEqual([
      ["add", "add a remote"],
      ["list", undefined],
    ])
  })

  it("reads flags: aliases as short names, choices, defaults, repeated and negated", () => {
    const flags = tree.subcommands[0]!.flags
    expect(flags.map((f) => f.usage)).toEqual([
      "-f --format <FORMAT>",
      "-o --out <OUT>",
      "--tag <TAG>",
      "--jobs <JOBS>",
      "--cache",
      "--no-cache",
    ])
    expect(flags[0]).toMatchObject({
      long: ["format"],
      short: ["f"],
      help: "output format",
      default: "text",
      arg: { name: "FORMAT", required: true, choices: [{ value: "text" }, { value: "json" }] },
    })
    expect(flags[1]!.default).toBeUndefined()
    expect(flags[2]!.variadic).toBe(true)
    expect(flags[3]!.default).toBe("4")
    expect(flags[4]!.arg).toBeUndefined()
    expect(tree.flags[0]).toMatchObject({ usage: "-v --verbose", short: ["v"], help: "more output" })
  })

  it("reads args: required, optional with choices, repeated", () => {
    expect(tree.subcommands[0]!.args.map((a) => [a.usage, a.required, a.variadic])).toEqual([
      ["<target>", true, false],
      ["[choice]", false, false],
      ["[file]...", false, true],
    ])
    expect(tree.subcommands[0]!.args[0]!.help).toBe("what to build")
    expect(tree.subcommands[0]!.args[1]!.choices).toEqual([{ value: "debug" }, { value: "release" }])
  })
})

describe("cliSpec", () => {
  const spec = cliSpec(tool, { version: "1.0.0", extras })
  const parsed = Effect.runSync(parseSpecString(cliSpecKdl(tool, { version: "1.0.0", extras })))

  it("writes KDL that parses back to the same model", () => {
    expect(parsed).toEqual(spec)
  })

  it("adds outputs, aliases and folded exit codes by path; --help is global", () => {
    const list = parsed.root.subcommands[1]!.subcommands[1]!
    expect(list.aliases).toEqual(["ls"])
    expect(list.outputs.map((o) => [o.name, o.default, o.selector])).toEqual([
      ["text", true, null],
      ["json", false, { kind: "present", flag: "--json" }],
    ])
    expect(list.exit_codes.map((e) => e.code)).toEqual([0, 3])
    expect(list.flags.find((f) => f.long[0] === "help")?.global).toBe(true)
    expect(parsed.root.flags.map((f) => f.usage)).toEqual(["-v --verbose", "-h --help", "--version"])
  })

  it("validates command lines the way the real parser does", () => {
    expect(validateArgv(parsed, ["remote", "ls", "--json"])).toEqual({
      ok: true,
      command: ["remote", "list"],
      output: "json",
    })
    expect(validateArgv(parsed, ["build", "--format", "yaml", "x"]).ok).toBe(false)
  })

  it("names table entries that match no command", () => {
    expect(unknownExtraPaths(tool, extras)).toEqual([])
    expect(unknownExtraPaths(tool, { ...extras, commands: { "remote nope": {} } })).toEqual(["remote nope"])
  })
})
