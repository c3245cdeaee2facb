import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeSandbox, runCli, type Sandbox, STACK_LINE } from "./harness.js"

const pkg = JSON.parse(readFileSync(resolve(__dirname, "../../package.json"), "utf8")) as { version: string }

let sb: Sandbox
let project: string
beforeEach(() => {
  sb = makeSandbox()
  project = join(sb.root, "work", "shop")
})
afterEach(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: project, env: sb.env })

const STACK = `[daemons.db]
run = "exec node db.js"
port = 5432
ready_port = 5432

[daemons.api]
run = "node server.js"
depends = ["db"]
ready_http = "http://127.0.0.1:3000/health"
env = { NODE_ENV = "development" }

[groups.web]
daemons = ["api", "db"]
`

describe("supervisor CLI basics", () => {
  beforeEach(() => sb.write({ "work/shop/.keep": "" }))

  it("--version prints the package version", () => {
    const r = cli("--version")
    expect(r.status).toBe(0)
    expect(r.stdout.trim()).toBe(pkg.version)
  })

  it("--help lists the commands", () => {
    const r = cli("--help")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("config show")
    expect(r.stdout).toContain("config validate")
    expect(r.stdout).toContain("schema")
  })

  it.each(["bash", "zsh", "fish"])("--completions %s prints a completion script", (shell) => {
    const r = cli("--completions", shell)
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("supervisor")
    expect(r.stdout).toContain("config")
  })

  it("config get prints one setting's effective value; an unknown key names the closest ones", () => {
    // settings are the global files' (a project file's would only be warned about)
    sb.write({
      "home/.config/supervisor/config.toml":
        '[settings.web]\nbind_port = 9100\n[settings.supervisor]\nstop_timeout = "7s"\n',
    })
    expect(cli("config", "get", "settings.web.bind_port").stdout).toBe("9100\n")
    expect(cli("config", "get", "supervisor.stop_timeout").stdout).toBe("7s\n")
    // a default, and an environment override
    expect(cli("config", "get", "settings.general.shell").stdout).toBe("sh -c\n")
    const viaEnv = runCli(["config", "get", "settings.web.bind_port"], {
      cwd: project,
      env: { ...sb.env, SUPERVISOR_WEB_BIND_PORT: "9200" },
    })
    expect(viaEnv.stdout).toBe("9200\n")
    const bad = cli("config", "get", "settings.web.bind_prot")
    expect(bad.status).toBe(1)
    expect(bad.stderr).toBe(
      'error: unknown setting "settings.web.bind_prot". Did you mean one of: settings.web.bind_port, settings.api.bind_port? (the settings: docs/configuration.md)\n',
    )
  })

  it("an unknown subcommand is a usage error (exit 2)", () => {
    const r = cli("bogus")
    expect(r.status).toBe(2)
    expect(r.stderr + r.stdout).toMatch(/bogus|subcommand/i)
    expect(r.stderr).not.toMatch(STACK_LINE)
  })

  it("an unknown flag is a usage error (exit 2)", () => {
    const r = cli("config", "show", "--jsn")
    expect(r.status).toBe(2)
    expect(r.stderr + r.stdout).toContain("--jsn")
  })

  it("schema prints the committed JSON Schema", () => {
    const r = cli("schema")
    expect(r.status).toBe(0)
    const committed = readFileSync(resolve(__dirname, "../../schemas/supervisor.schema.json"), "utf8")
    expect(r.stdout).toBe(committed)
    expect(JSON.parse(r.stdout).$defs.DaemonOptions.properties.run.description).toMatch(/command/i)
    // durations keep their defaults, as a file writes them
    expect(JSON.parse(r.stdout).$defs.GeneralSettings.properties.interval.default).toBe("10s")
    expect(JSON.parse(r.stdout).$defs.SupervisorSettings.properties.stop_timeout.default).toBe("5s")
  })
})

describe("supervisor config show", () => {
  it("--json prints every daemon with qualified ID, namespace, resolved dir and source", () => {
    sb.write({ "work/shop/supervisor.toml": STACK })
    const r = cli("config", "show", "--json")
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(Object.keys(out.daemons)).toEqual(["shop/db", "shop/api"])
    const api = out.daemons["shop/api"]
    expect(api.id).toEqual({ namespace: "shop", name: "api", qualified: "shop/api", safe_path: "shop--api" })
    expect(api.config.dir).toBe(project)
    expect(api.config.depends).toEqual(["shop/db"])
    expect(api.config.ready_http).toEqual({ url: "http://127.0.0.1:3000/health", status: [] })
    expect(api.source).toBe(join(project, "supervisor.toml"))
    expect(out.groups.web.daemons).toEqual(["shop/api", "shop/db"])
    expect(out.settings.supervisor.stop_timeout).toBe("5s")
    expect(out.namespace).toBe("shop")
  })

  it("human output names each daemon, its dir and its source", () => {
    sb.write({ "work/shop/supervisor.toml": STACK })
    const r = cli("config", "show")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain("shop/api")
    expect(r.stdout).toContain(project)
    expect(r.stdout).toContain(join(project, "supervisor.toml"))
    expect(r.stdout).toMatch(/depends\s+\["shop\/db"\]/)
  })

  it("human output shows a dependency's condition where it is written, not as a key of its own", () => {
    sb.write({
      "work/shop/supervisor.toml": `${STACK}\n[daemons.migrate]\nrun = "true"\n\n[daemons.web]\nrun = "x"\ndepends = ["db", { id = "migrate", condition = "completed" }]\n`,
    })
    const r = cli("config", "show")
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(
      `    depends      ["shop/db", { id = "shop/migrate", condition = "completed" }]\n`,
    )
    expect(r.stdout).not.toContain("depends_conditions")
  })

  it("human output shows readiness checks and tables as they are written in TOML, not as JSON", () => {
    sb.write({
      "work/shop/supervisor.toml": [
        "[daemons.api]",
        'run = "x"',
        'ready_http = "http://127.0.0.1:3000/health"',
        "ready_port = 3000",
        'env = { MODE = "dev", "A.B" = "1" }',
        "[daemons.db]",
        'run = "y"',
        'ready_output = "ready to accept"',
        'ready_cmd = { run = "pg_isready", timeout = "5s" }',
        'ready_http = { url = "http://127.0.0.1:5432/", status = [200, 204] }',
      ].join("\n"),
    })
    const r = cli("config", "show")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("    ready_http   http://127.0.0.1:3000/health\n")
    expect(r.stdout).toContain("    ready_port   3000\n")
    expect(r.stdout).toContain(`    env          { MODE = "dev", "A.B" = "1" }\n`)
    expect(r.stdout).toContain("    ready_output ready to accept\n")
    expect(r.stdout).toMatch(/^ {4}ready_cmd {4}\{ run = "pg_isready", timeout = \S+ \}$/m)
    expect(r.stdout).toContain(`    ready_http   { url = "http://127.0.0.1:5432/", status = [200, 204] }\n`)
    expect(r.stdout).not.toMatch(/[{,]"\w+":/)
  })

  it("merges global and project levels, later overriding earlier", () => {
    sb.write({
      "home/.config/supervisor/config.toml":
        '[daemons.redis]\nrun = "redis-server"\n[settings.supervisor]\nstop_timeout = "2s"\n',
      "work/supervisor.toml": 'namespace = "work"\n[daemons.docs]\nrun = "mkdocs serve"\n',
      "work/shop/supervisor.toml": STACK,
      "work/shop/supervisor.local.toml": '[daemons.api]\nenv = { NODE_ENV = "test" }\n',
    })
    const out = JSON.parse(cli("config", "show", "--json").stdout)
    expect(Object.keys(out.daemons).sort()).toEqual(["global/redis", "shop/api", "shop/db", "work/docs"])
    expect(out.daemons["shop/api"].config.env).toEqual({ NODE_ENV: "test" })
    expect(out.daemons["shop/api"].config.run).toBe("node server.js")
    expect(out.settings.supervisor.stop_timeout).toBe("2s")
    expect(out.files.map((f: { level: string }) => f.level)).toEqual([
      "user",
      "project",
      "project",
      "project",
    ])
  })

  it("a SUPERVISOR_<GROUP>_<KEY> variable overrides a setting", () => {
    sb.write({ "work/shop/supervisor.toml": STACK })
    const r = runCli(["config", "show", "--json"], {
      cwd: project,
      env: { ...sb.env, SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "750ms", SUPERVISOR_WEB_BIND_PORT: "4000" },
    })
    const out = JSON.parse(r.stdout)
    expect(out.settings.supervisor.stop_timeout).toBe("750ms")
    expect(out.settings.web.bind_port).toBe(4000)
  })

  it("an empty directory shows no daemons and exits 0", () => {
    sb.write({ "work/shop/.keep": "" })
    const r = cli("config", "show", "--json")
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).daemons).toEqual({})
  })

  it("deprecated port keys still work and print a warning", () => {
    sb.write({
      "work/shop/supervisor.toml":
        '[daemons.api]\nrun = "x"\nexpected_port = [3000]\nauto_bump_port = true\n',
    })
    const r = cli("config", "show", "--json")
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.daemons["shop/api"].config.port).toEqual({ expect: [3000], bump: 10 })
    expect(out.warnings[0]).toMatch(/expected_port.*deprecated/)
    expect(cli("config", "validate").stderr).toMatch(
      /warning: .*supervisor\.toml:3: daemons\.api\.expected_port/,
    )
  })

  it("a setting only the supervisor reads, in a project file, gets a warning that says where it goes", () => {
    sb.write({
      "work/shop/supervisor.toml": '[daemons.api]\nrun = "x"\n[settings.general]\nshell = "bash -c"\n',
    })
    const r = cli("config", "validate")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stderr).toContain(
      "supervisor.toml: settings.general.shell has no effect in a project file: the supervisor reads its settings from ~/.config/supervisor/config.toml",
    )
  })
})

describe("bad input: one clear message naming file and key, exit 1, no stack trace", () => {
  const file = () => join(project, "supervisor.toml")
  const cases: Array<[string, string, RegExp]> = [
    ["malformed TOML", '[daemons.api]\nrun = "x\n', /supervisor\.toml:2: TOML parse error/],
    [
      "a wrong type",
      '[daemons.api]\nrun = "x"\nretry = "often"\n',
      /supervisor\.toml:3: daemons\.api\.retry: /,
    ],
    [
      "an unknown key",
      '[daemons.api]\nrun = "x"\nretyr = 3\n',
      /supervisor\.toml:3: daemons\.api\.retyr: unknown key "retyr"\n\s+hint: did you mean "retry"\?/,
    ],
    [
      "an invalid name",
      '[daemons."my--app"]\nrun = "x"\n',
      /supervisor\.toml:1: daemons\.my--app: invalid daemon name "my--app"/,
    ],
    [
      "a missing run",
      "[daemons.api]\nretry = 1\n",
      /daemons\.api\.run: daemon shop\/api has no `run` command/,
    ],
    [
      "a bad dependency",
      '[daemons.api]\nrun = "x"\ndepends = ["dbb"]\n[daemons.db]\nrun = "y"\n',
      /depends\[0\]: .*"shop\/dbb".*\n\s+hint: did you mean "shop\/db"\?/,
    ],
    [
      "a ready_http that is no http URL",
      '[daemons.api]\nrun = "x"\nready_http = "localhost:3000/health"\n',
      /supervisor\.toml:3: daemons\.api\.ready_http: expected an http:\/\/ or https:\/\/ URL such as "http:\/\/127\.0\.0\.1:3000\/health", got "localhost:3000\/health"/,
    ],
    [
      "a cycle",
      '[daemons.a]\nrun = "x"\ndepends = ["b"]\n[daemons.b]\nrun = "y"\ndepends = ["a"]\n',
      /circular dependency: shop\/a -> shop\/b -> shop\/a/,
    ],
  ]
  it.each(cases)("%s", (_, toml, expected) => {
    sb.write({ "work/shop/supervisor.toml": toml })
    for (const command of [
      ["config", "show"],
      ["config", "show", "--json"],
      ["config", "validate"],
    ]) {
      const r = cli(...command)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(file())
      expect(r.stderr).toMatch(expected)
      expect(r.stderr).not.toMatch(STACK_LINE)
      if (command.includes("--json")) expect(JSON.parse(r.stdout).valid).toBe(false)
      else expect(r.stdout).toBe("")
    }
  })

  it("config validate lists every problem at once", () => {
    sb.write({
      "work/shop/supervisor.toml":
        '[daemons.api]\nrun = "x"\nretyr = 3\nport = "abc"\nmemory_limit = "5XB"\n',
    })
    const r = cli("config", "validate")
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("daemons.api.retyr")
    expect(r.stderr).toContain("daemons.api.port")
    expect(r.stderr).toContain("daemons.api.memory_limit")
    expect(r.stderr).toContain("3 problems found")
  })

  it("config validate --json reports problems as data", () => {
    sb.write({ "work/shop/supervisor.toml": '[daemons.api]\nrun = "x"\nretyr = 3\n' })
    const r = cli("config", "validate", "--json")
    expect(r.status).toBe(1)
    const out = JSON.parse(r.stdout)
    expect(out.valid).toBe(false)
    expect(out.problems[0]).toMatchObject({
      _tag: "UnknownKey",
      key: "daemons.api.retyr",
      line: 3,
      file: file(),
    })
  })

  it("config validate exits 0 on a valid config and warns about missing group members", () => {
    sb.write({ "work/shop/supervisor.toml": `${STACK}\n[groups.all]\ndaemons = ["api", "nope"]\n` })
    const r = cli("config", "validate")
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/valid: 2 daemons in 1 file/)
    // with the line of the group's daemons
    const line = `${STACK}\n[groups.all]\n`.split("\n").length
    expect(r.stderr).toContain(
      `supervisor.toml:${line}: groups.all.daemons[1]: shop/nope is not a configured daemon`,
    )
  })

  it("a bad environment override names the variable", () => {
    sb.write({ "work/shop/supervisor.toml": STACK })
    const r = runCli(["config", "validate"], {
      cwd: project,
      env: { ...sb.env, SUPERVISOR_GENERAL_INTERVAL: "soon" },
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/SUPERVISOR_GENERAL_INTERVAL: settings\.general\.interval: invalid value "soon"/)
  })
})
