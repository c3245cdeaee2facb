import { execFileSync, spawnSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { largeSpec } from "../usage/conformance/largeSpec.js"
import { BIN, type CliResult, makeSandbox, runCli, type Sandbox } from "./harness.js"

// `supervisor spec ...` and `supervisor usage`, through the built CLI, on a fixture spec.

const SPEC = `bin "demo"
version "1.0.0"
about "a demo CLI"
flag "-v --verbose" global=#true help="more output"
output "text" default=#true help="human text"
exit_code 0 "success"
exit_code 1 "failure"
cmd "list" help="list things" {
  alias "ls"
  flag "--json" help="JSON"
  output "json" framing="json" media_type="application/json" select="--json" {
    schema file="list.schema.json"
  }
  exit_code 3 "nothing found"
}
cmd "show" help="show one thing" {
  arg "<name>"
}
`
const INLINE = `bin "tiny"
cmd "go" {
  flag "--json"
  output "json" framing="json" select="--json" {
    schema #"{"type": "object"}"#
  }
}
`
const BAD = `bin "bad"
output "a" default=#true
output "b" default=#true colour="red"
cmd "x" {
  output "y" framing="xml"
}
`

// Specs written the way usage's own docs and pitchfork's and mise's specs write them (issue 17).
const REAL = `name "pitchfork"
bin "pitchfork"
version "1.0.0"
about "Daemons with DX"
usage "pitchfork <COMMAND>"
min_usage_version "2.0"
source_code_link_template "https://example.org/src/cli/{{path}}.rs"
flag "-v --verbose" help="More output" global=#true count=#true var=#true
flagset "output" {
  flag "-J --json" help="Print JSON"
}
complete "daemon" run="pitchfork list --names" descriptions=#true
cmd "logs" help="Show logs" effect="read" {
  alias "l"
  flag "--clear" help="Delete the logs" effect="destructive"
  flag "-n <LINES>" help="How many lines" default="100"
  arg "[daemon]..." help="The daemons"
}
cmd "start" help="Start daemons" effect="write" subcommand_required=#false {
  use "output"
  flag "--color <WHEN>" { arg "<WHEN>" { choices "auto" "always" "never"; }; }
  arg "plugin"
  arg "[TOOL@VERSION]…" var=#true
  arg "[-- args]..."
}
cmd "run"{
  mount run="pitchfork tasks --usage"
}
`
const REJECTED = `bin "x"
flagset "output" { flag "--json"; }
cmd "a" {
  use "outupt"
  flag "--b" { choices "x"; }
  arg "<c>" { choices { choice "y"; choice "y"; }; }
}
`

let sb: Sandbox
const cli = (...args: Array<string>): CliResult => runCli(args, { cwd: sb.root, env: sb.env })
const cliStdin = (input: string, ...args: Array<string>): CliResult =>
  runCli(args, { cwd: sb.root, env: sb.env, input })

beforeAll(() => {
  sb = makeSandbox()
  sb.write({
    "demo.kdl": SPEC,
    "list.schema.json": '{"type": "array", "items": {"type": "string"}}\n',
    "inline.kdl": INLINE,
    "bad.kdl": BAD,
    "real.kdl": REAL,
    "rejected.kdl": REJECTED,
  })
})
afterAll(() => sb.cleanup())

describe("supervisor spec check", () => {
  it("exits 0 with the number of commands", () => {
    const r = cli("spec", "check", "demo.kdl")
    expect(r.stdout.trim()).toBe("ok: demo.kdl (3 commands)")
    expect(r.status).toBe(0)
  })

  it("prints every problem, one per line with file and line, and exits 1", () => {
    const r = cli("spec", "check", "bad.kdl")
    expect(r.status).toBe(1)
    expect(r.stdout).toBe("")
    const lines = r.stderr.trim().split("\n")
    expect(lines.slice(0, -1)).toEqual([
      expect.stringMatching(/^bad\.kdl:2: bad: output "a": more than one default output \("a", "b"\)/),
      expect.stringMatching(/^bad\.kdl:3: bad: output "b": unknown property colour="red"/),
      expect.stringMatching(/^bad\.kdl:5: bad x: output "y": framing "xml" is not one of text, json, jsonl/),
    ])
    expect(lines.at(-1)).toBe("3 problems found")
  })

  // @effect/cli stops reading flags at a lone "-": they go before it (`spec resolve --json -`).
  it("reads - from stdin as a spec string: relative schema files are errors there", () => {
    expect(cliStdin(INLINE, "spec", "check", "-")).toMatchObject({
      status: 0,
      stdout: "ok: - (2 commands)\n",
    })
    const r = cliStdin(SPEC, "spec", "check", "-")
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(
      /^<stdin>:11: demo list: output "json": schema file "list.schema.json" is relative/,
    )
  })

  it("a missing file is one problem, exit 1", () => {
    const r = cli("spec", "check", "nope.kdl")
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/cannot read .*nope\.kdl: no such file/)
  })
})

describe("supervisor spec resolve", () => {
  it("--json: per command path its outputs, select and exit codes, plus sources", () => {
    const r = cli("spec", "resolve", "demo.kdl", "--json")
    expect(r.status).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(Object.keys(doc.commands)).toEqual(["demo", "demo list", "demo show"])
    const list = doc.commands["demo list"]
    expect(list.outputs.map((o: { name: string }) => o.name)).toEqual(["text", "json"])
    expect(list.outputs[1]).toMatchObject({
      framing: "json",
      media_type: "application/json",
      default: false,
      selector: { kind: "present", flag: "--json" },
      schema: '{"type": "array", "items": {"type": "string"}}\n',
      schema_file: join(sb.root, "list.schema.json"),
    })
    expect(list.select).toBeNull()
    expect(list.exit_codes).toEqual([
      { code: 0, description: "success" },
      { code: 1, description: "failure" },
      { code: 3, description: "nothing found" },
    ])
    expect(doc.sources).toEqual([join(sb.root, "demo.kdl"), join(sb.root, "list.schema.json")])
  })

  it("without --json: a readable summary", () => {
    const r = cli("spec", "resolve", "demo.kdl")
    expect(r.stdout).toContain("demo list\n  output text (text, default): human text\n")
    expect(r.stdout).toContain("  output json (json, application/json, schema, --json)")
    expect(r.stdout).toContain("  exit 3: nothing found")
  })
})

describe("supervisor spec docs", () => {
  it("markdown to stdout: each file after a <!-- file: NAME --> line", () => {
    const r = cli("spec", "docs", "demo.kdl")
    expect(r.status).toBe(0)
    expect(r.stdout.match(/^<!-- file: .+ -->$/gm)).toEqual([
      "<!-- file: index.md -->",
      "<!-- file: list.md -->",
      "<!-- file: show.md -->",
    ])
  })

  it("markdown and man to --out", () => {
    const md = join(sb.root, "md")
    expect(cli("spec", "docs", "demo.kdl", "--format", "markdown", "--out", md).status).toBe(0)
    expect(readdirSync(md).sort()).toEqual(["index.md", "list.md", "show.md"])
    expect(readFileSync(join(md, "list.md"), "utf8")).toContain("nothing found")
    const man = join(sb.root, "man")
    const r = cli("spec", "docs", "demo.kdl", "--format", "man", "--out", man)
    expect(r.stdout.trim()).toBe(`wrote ${join(man, "demo.1")}`)
    expect(readFileSync(join(man, "demo.1"), "utf8")).toMatch(/^\.TH "DEMO" 1/m)
  })
})

describe("supervisor spec describe", () => {
  it("describes a command (by alias) with its outputs and parsed schema", () => {
    const r = cli("spec", "describe", "demo.kdl", "ls")
    expect(r.status).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.path).toEqual(["list"])
    expect(d.outputs[1]).toMatchObject({ name: "json", schema: { type: "array" } })
    expect(JSON.parse(cli("spec", "describe", "demo.kdl").stdout).path).toEqual([])
  })

  it("an unknown command exits 1 and lists the known ones", () => {
    const r = cli("spec", "describe", "demo.kdl", "nope")
    expect(r.status).toBe(1)
    expect(r.stderr).toBe(
      'error: unknown command "demo nope": "nope" is not a subcommand of "demo"\nknown commands:\n  list\n  show\n',
    )
  })

  it("--list prints list_commands", () => {
    const list = JSON.parse(cli("spec", "describe", "demo.kdl", "--list").stdout)
    expect(list.map((c: { path: Array<string> }) => c.path.join(" "))).toEqual(["", "list", "show"])
  })
})

describe("supervisor spec sdk, fmt, complete", () => {
  it("sdk writes the files of each language", () => {
    for (const lang of ["typescript", "python"]) {
      const out = join(sb.root, `sdk-${lang}`)
      const r = cli("spec", "sdk", "demo.kdl", "--lang", lang, "--out", out)
      expect(r.status).toBe(0)
      const files = readdirSync(out)
      expect(files).toContain(lang === "typescript" ? "index.ts" : "__init__.py")
      expect(r.stdout.trim().split("\n")).toHaveLength(files.length)
    }
  })

  it("fmt prints KDL that parses to the same model and formats to itself", () => {
    const once = cli("spec", "fmt", "demo.kdl")
    expect(once.status).toBe(0)
    expect(once.stdout).toContain('      {"type": "array", "items": {"type": "string"}}\n')
    const twice = cliStdin(once.stdout, "spec", "fmt", "-")
    expect(twice.stdout).toBe(once.stdout)
    const a = JSON.parse(cli("spec", "resolve", "demo.kdl", "--json").stdout)
    const b = JSON.parse(cliStdin(once.stdout, "spec", "resolve", "--json", "-").stdout)
    for (const c of Object.values(b.commands) as Array<{ outputs: Array<{ schema_file: unknown }> }>)
      for (const o of c.outputs) o.schema_file = null
    for (const c of Object.values(a.commands) as Array<{ outputs: Array<{ schema_file: unknown }> }>)
      for (const o of c.outputs) o.schema_file = null
    expect(b.commands).toEqual(a.commands)
  })

  it("fmt --write rewrites a self-contained file, refuses to inline schema files", () => {
    const messy = join(sb.root, "messy.kdl")
    writeFileSync(messy, 'bin   "m"\ncmd "a"   help="x"\n')
    expect(cli("spec", "fmt", "messy.kdl", "--write").status).toBe(0)
    expect(readFileSync(messy, "utf8")).toBe('bin "m"\ncmd "a" help="x"\n')
    const r = cli("spec", "fmt", "demo.kdl", "--write")
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^error: --write would inline 1 included or schema file/)
    expect(cliStdin(INLINE, "spec", "fmt", "--write", "-").status).toBe(2)
  })

  it("complete prints a bash script", () => {
    const r = cli("spec", "complete", "demo.kdl", "--shell", "bash")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("complete -o default -F _demo demo")
  })
})

describe("supervisor usage", () => {
  it("is a valid spec whose `list` has its json output and schema", () => {
    const usage = cli("usage")
    expect(usage.status).toBe(0)
    const file = join(sb.root, "supervisor.kdl")
    writeFileSync(file, usage.stdout)
    expect(cli("spec", "check", file).status).toBe(0)
    const r = cli("spec", "describe", file, "list")
    expect(r.status).toBe(0)
    const list = JSON.parse(r.stdout)
    const json = list.outputs.find((o: { name: string }) => o.name === "json")
    expect(json).toMatchObject({
      framing: "json",
      media_type: "application/json",
      selector: { kind: "present", flag: "--json" },
      schema: { type: "array", items: { $ref: "#/$defs/ApiDaemonEntry" } },
    })
  })
})

describe("the usage language (issue 17)", () => {
  it("checks a spec written the way real specs are, using every part of it", () => {
    expect(cli("spec", "check", "real.kdl")).toMatchObject({
      status: 0,
      stdout: "ok: real.kdl (4 commands)\n",
    })
    const start = JSON.parse(cli("spec", "describe", "real.kdl", "start").stdout)
    expect(start.effect).toBe("write")
    expect(start.flags.map((f: { names: Array<string> }) => f.names.join(" "))).toEqual([
      "-J --json",
      "--color",
      "-v --verbose",
    ])
    expect(JSON.parse(cli("spec", "describe", "real.kdl", "run").stdout).mounts).toEqual([
      "pitchfork tasks --usage",
    ])
    expect(cli("spec", "complete", "real.kdl", "--shell", "bash").stdout).toContain("pitchfork list --names")
  })

  it("rejects what usage rejects, every problem with its file and line", () => {
    const r = cli("spec", "check", "rejected.kdl")
    expect(r.status).toBe(1)
    expect(r.stderr).toBe(
      [
        'rejected.kdl:4: use "outupt": unknown flagset "outupt" (declared: output)',
        'rejected.kdl:5: x a: flag "--b": choices: a flag must take a value to have choices (add <VALUE> to its usage, or a child arg)',
        'rejected.kdl:6: x a: arg "<c>": choice "y": choice "y" is declared more than once',
        "3 problems found",
        "",
      ].join("\n"),
    )
  })

  it("complete refuses a spec that names no program", () => {
    const r = cliStdin('arg "<x>"\n', "spec", "complete", "--shell", "bash", "-")
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^error: the spec names no program/)
  })
})

describe("a spec of mise's size through every spec command (issue 17)", () => {
  const large = largeSpec()
  // Larger than spawnSync's default 1 MiB of output (resolve --json is about 2 MiB).
  const run = (args: ReadonlyArray<string>, input?: string) => {
    const r = spawnSync(process.execPath, [BIN, "spec", ...args], {
      cwd: sb.root,
      env: sb.env,
      encoding: "utf8",
      maxBuffer: 1 << 28,
      ...(input === undefined ? {} : { input }),
    })
    expect(r.stderr).toBe("")
    expect(r.status).toBe(0)
    return r.stdout
  }
  beforeAll(() => sb.write(large.files))
  const shell = (name: string, script: string) => {
    const file = join(sb.root, `mycli.${name}`)
    writeFileSync(file, script)
    execFileSync(name, ["-n", file], { stdio: ["ignore", "pipe", "pipe"] })
  }

  it("check, docs and docs --man", () => {
    expect(run(["check", large.main])).toBe(`ok: ${large.main} (${large.commands} commands)\n`)
    expect(run(["docs", large.main]).match(/^<!-- file: .+ -->$/gm)?.length).toBeGreaterThan(50)
    expect(run(["docs", "--format", "man", large.main])).toMatch(/^\.TH "MYCLI" 1/m)
  })

  it("complete for bash, zsh and fish: scripts each shell reads", () => {
    for (const name of ["bash", "zsh", "fish"]) {
      const script = run(["complete", "--shell", name, large.main])
      expect(script).toContain("mycli plugins ls")
      expect(() => shell(name, script)).not.toThrow()
    }
  })

  it("resolve --json and describe", () => {
    const doc = JSON.parse(run(["resolve", "--json", large.main]))
    expect(Object.keys(doc.commands)).toHaveLength(large.commands)
    expect(doc.config.files.map((f: { path: string }) => f.path)).toEqual([
      "/etc/mycli/config.toml",
      ".mycli.toml",
    ])
    expect(JSON.parse(run(["describe", large.main])).flags.length).toBeGreaterThan(3)
    // Listed: every command neither hidden itself nor under a hidden one.
    const hidden = Object.entries(doc.commands as Record<string, { hide: boolean }>)
      .filter(([, c]) => c.hide)
      .map(([line]) => line)
    const visible = Object.keys(doc.commands).filter(
      (line) => !hidden.some((h) => line === h || line.startsWith(`${h} `)),
    )
    expect(JSON.parse(run(["describe", "--list", large.main]))).toHaveLength(visible.length)
  })

  it("fmt: the same model, and formatting it again changes nothing", () => {
    const once = run(["fmt", large.main])
    expect(run(["fmt", "-"], once)).toBe(once)
    const a = JSON.parse(run(["resolve", "--json", large.main]))
    const b = JSON.parse(run(["resolve", "--json", "-"], once))
    expect({ ...b, sources: [] }).toEqual({ ...a, sources: [] })
  })
})
