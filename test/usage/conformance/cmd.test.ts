import { describe, expect, it } from "vitest"
import {
  describeCommand,
  listCommands,
  markdownDocs,
  validateArgv,
} from "../../../src/usage/consume/index.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// `cmd`: lib/src/spec/cmd.rs (SpecCommand::parse), lib/src/spec/effect.rs and
// docs/spec/reference/cmd.md.

describe("properties", () => {
  // cmd.rs: help, long_help/help_long, before_help, before_long_help/before_help_long,
  // after_help, after_long_help/after_help_long, subcommand_required, hide, deprecated, effect.
  it("reads every property, as a property or as a child node", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'cmd "config" help="short" before_help="shown before" after_help="shown after" subcommand_required=#true {',
        '  before_long_help "before, long"',
        '  long_help "longer description"',
        '  after_long_help "after, long"',
        '  cmd "get"',
        "}",
        'cmd "old" hide=#true deprecated="use new" effect="destructive"',
        'cmd "older" { deprecated #true; effect "read"; hide #true; }',
      ),
    )
    expect(at(spec, "config")).toMatchObject({
      help: "short",
      long_help: "longer description",
      before_help: "shown before",
      before_long_help: "before, long",
      after_help: "shown after",
      after_long_help: "after, long",
      subcommand_required: true,
    })
    expect(at(spec, "old")).toMatchObject({ hide: true, deprecated: "use new", effect: "destructive" })
    expect(at(spec, "older")).toMatchObject({ hide: true, deprecated: "deprecated", effect: "read" })
  })

  // effect.rs: EFFECT_VALUES is "read, write, destructive".
  it("rejects an effect usage does not have", () => {
    expect(rejects(kdl('bin "x"', 'cmd "y" effect="readonly"'))).toEqual([
      'spec.kdl:2: x: cmd "y": effect "readonly" is not one of read, write, destructive',
    ])
  })

  // cmd.rs keeps these switches (external_subcommand, restart_token, ...); supervisor writes them back.
  it("keeps the switches it does not act on", () => {
    expect(
      at(accepts(kdl('bin "x"', 'cmd "run" restart_token=":::" external_subcommand=#true')), "run").kept,
    ).toEqual({
      props: [
        ["restart_token", ":::"],
        ["external_subcommand", true],
      ],
      nodes: [],
    })
  })

  // cmd.rs: node.ensure_arg_len(1..=1): a cmd's only argument is its name.
  it("takes one argument, its name", () => {
    expect(rejects(kdl('bin "x"', 'cmd "y" "the help"'))).toEqual([
      'spec.kdl:2: x: cmd "y": cmd takes one argument, its name; write the help as help="the help"',
    ])
  })

  // cmd.rs: `k => bail_parse!(..., "unsupported cmd prop {k}")` and "unsupported cmd key {k}".
  it("rejects unknown properties and children with a hint", () => {
    expect(rejects(kdl('bin "x"', 'cmd "y" hidden=#true { flagg "--z"; }'))).toEqual([
      'spec.kdl:2: x: cmd "y": unknown property hidden=#true (did you mean hide?)',
      'spec.kdl:2: x y: flagg "--z": unknown child node "flagg" (did you mean flag?)',
    ])
  })
})

describe("aliases, examples, nesting", () => {
  // cmd.rs, child "alias": several names; hide=#true ones are accepted but not listed.
  it("reads alias nodes, hidden ones included", () => {
    const spec = accepts(kdl('bin "x"', 'cmd "config" { alias "cfg" "cf"; alias "conf" hide=#true; }'))
    expect(at(spec, "config")).toMatchObject({ aliases: ["cfg", "cf"], hidden_aliases: ["conf"] })
    expect(validateArgv(spec, ["conf"])).toMatchObject({ ok: true, command: ["config"] })
    expect(markdownDocs(spec).get("index.md")).not.toContain("conf`")
  })

  // cmd.rs, child "example": one argument (the code), header=, help=, lang=.
  it("reads examples with header, help and lang", () => {
    const spec = accepts(
      kdl('bin "x"', 'cmd "deploy" { example "x deploy -e prod" header="Deploy" lang="console"; }'),
    )
    expect(at(spec, "deploy").examples).toEqual([
      { code: "x deploy -e prod", header: "Deploy", lang: "console" },
    ])
    expect(markdownDocs(spec).get("deploy.md")).toContain("```console\nx deploy -e prod\n```")
  })

  // KDL 2 (https://kdl.dev/spec/): node-space before a children block is optional.
  it('reads cmd "a"{} with no space before the block', () => {
    expect(accepts(kdl('bin "x"', 'cmd "a"{ cmd "b"{} }')).root.subcommands[0]!.subcommands[0]!.name).toBe(
      "b",
    )
  })

  // docs/spec/reference/{clause,group}.md and sigils.md: kept as written, not acted on.
  it("keeps clause and group nodes and sigil arguments as written", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'cmd "run" {',
        '  clause "tasks" separator=":::" { arg "<task>"; arg "[args]..." var=#true double_dash="automatic"; }',
        '  group "out" { flag "--a" "--b"; }',
        '  arg "[tool]..." sigil="+"',
        "}",
      ),
    )
    expect(at(spec, "run").passthrough.map((p) => p.kdl.split("\n")[0])).toEqual([
      'clause "tasks" separator=":::" {',
      'group "out" {',
    ])
    expect(at(spec, "run").args[0]!.kept?.props).toEqual([["sigil", "+"]])
  })

  // cmd.rs: subcommands are an IndexMap by name: a second cmd of a name replaces the first.
  it("a second cmd of the same name replaces the first, in its place", () => {
    const spec = accepts(kdl('bin "x"', 'cmd "a" help="one"', 'cmd "b"', 'cmd "a" help="two"'))
    expect(spec.root.subcommands.map((c) => [c.name, c.help])).toEqual([
      ["a", "two"],
      ["b", undefined],
    ])
  })
})

describe("what the tools make of it", () => {
  const spec = accepts(
    kdl(
      'bin "pitchfork"',
      'cmd "logs" effect="read" { flag "--clear" effect="destructive"; }',
      'cmd "config" subcommand_required=#true { cmd "show"; }',
    ),
  )

  // effect.rs: consumers (an MCP server, docs) show the effect.
  it("describe and list carry the effect", () => {
    const logs = describeCommand(spec, ["logs"])
    expect(logs.ok && logs.command.effect).toBe("read")
    expect(logs.ok && logs.command.flags.find((f) => f.names.includes("--clear"))?.effect).toBe("destructive")
    expect(listCommands(spec).find((c) => c.path[0] === "logs")?.effect).toBe("read")
    expect(markdownDocs(spec).get("logs.md")).toContain("Effect: read-only.")
  })

  it("validation wants a subcommand where one is required", () => {
    expect(validateArgv(spec, ["config"])).toEqual({
      ok: false,
      errors: ['"pitchfork config" needs a subcommand (one of: show)'],
    })
    expect(validateArgv(spec, ["config", "--help"]).ok).toBe(true)
  })
})
