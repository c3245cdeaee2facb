import { describe, expect, it } from "vitest"
import { formatProblem } from "../../src/domain/ConfigProblem.js"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("invalid daemon names (InvalidDaemonName)", () => {
  it.each([
    ["my--app", "double dash"],
    ["api/v2", "slash"],
    ["my app", "spaces"],
    ["..", "parent reference"],
    ["foo..bar", "parent reference"],
    ["-app", "dash"],
    ["app-", "dash"],
    ["café", "ASCII"],
    ["a@b", "ASCII"],
  ])("%j fails (%s)", async (name, rule) => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.ok]",
        'run = "ok"',
        "",
        `[daemons.${JSON.stringify(name)}]`,
        'run = "x"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidDaemonName"])
    const p = only(err, "InvalidDaemonName")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe(`daemons.${name}`)
    expect(p.message).toContain(JSON.stringify(name))
    expect(p.message).toContain(rule)
    expect(p.hint).toContain("rename")
  })

  it.each(["my-app", "my_app", "myapp123", "a.b", "A"])("%j is a valid name", async (name) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml(`[daemons.${JSON.stringify(name)}]`, 'run = "x"') })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons)).toEqual([`app/${name}`])
  })

  it("is reported in global files too", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml('[daemons."bad--name"]', 'run = "x"') })
    const err = await loadErr(sb, { cwd: "w" })
    const p = only(err, "InvalidDaemonName")
    expect(p.file).toBe(sb.path("home/.config/supervisor/config.toml"))
    expect(p.line).toBe(1)
  })
})

describe("invalid dependency IDs (InvalidDependency)", () => {
  it.each([
    ["a//b", "more than one slash"],
    ["x y", "spaces"],
    ["bad--name", "double dash"],
    ["my app/db", "invalid namespace"],
    ["app/", "empty"],
  ])("a malformed ID %j fails", async (dep, rule) => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.db]",
        'run = "db"',
        "[daemons.web]",
        'run = "web"',
        `depends = ["db", ${JSON.stringify(dep)}]`,
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidDependency"])
    const p = only(err, "InvalidDependency")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(5)
    expect(p.key).toBe("daemons.web.depends[1]")
    expect(p.message).toContain(rule)
    expect(p.hint).toContain("<namespace>/<name>")
  })

  it("a dependency on a missing daemon suggests the closest name", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.postgres]",
        'run = "postgres"',
        "[daemons.web]",
        'run = "web"',
        'depends = ["postgress"]',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(5)
    expect(p.key).toBe("daemons.web.depends[0]")
    expect(p.message).toContain("app/web")
    expect(p.message).toContain('"app/postgress"')
    expect(p.message).toContain("not a configured daemon")
    expect(p.hint).toBe('did you mean "app/postgres"?')
  })

  it("without a close match, the hint lists the known daemons", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis"'),
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["global/elasticsearch"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.message).toContain('"global/elasticsearch"')
    expect(p.hint).toContain("global/redis")
    expect(p.hint).toContain("app/web")
  })

  it("a short ID does not fall back to the global namespace", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis"'),
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["redis"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.message).toContain('"app/redis"')
  })

  it("points at the file that set `depends`, not the one that defined the daemon", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml("", "[daemons.web]", 'depends = ["nope"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.file).toBe(sb.path("app/supervisor.local.toml"))
    expect(p.line).toBe(3)
  })

  it("reports each missing dependency separately", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["one", "two"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(err.problems.map((p) => [p._tag, p.key])).toEqual([
      ["InvalidDependency", "daemons.web.depends[0]"],
      ["InvalidDependency", "daemons.web.depends[1]"],
    ])
  })
})

describe("malformed group members (InvalidGroupMember)", () => {
  it.each([
    ["x y", "spaces"],
    ["a/b/c", "more than one slash"],
    ["a--b", "double dash"],
    ["", "empty"],
  ])("%j fails", async (member, rule) => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "[groups.dev]",
        `daemons = ["web", ${JSON.stringify(member)}]`,
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidGroupMember"])
    const p = only(err, "InvalidGroupMember")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe("groups.dev.daemons[1]")
    expect(p.message).toContain(rule)
    expect(p.hint).toContain("<namespace>/<name>")
  })
})

describe("circular dependencies (DependencyCycle)", () => {
  it("a self-dependency", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.a]", 'run = "a"', 'depends = ["a"]') })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["DependencyCycle"])
    const p = only(err, "DependencyCycle")
    expect(p.cycle).toEqual(["app/a", "app/a"])
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe("daemons.a.depends")
    expect(p.message).toBe("circular dependency: app/a -> app/a")
    expect(p.hint).toBeDefined()
  })

  it("a two-cycle", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.a]",
        'run = "a"',
        'depends = ["b"]',
        "[daemons.b]",
        'run = "b"',
        'depends = ["a"]',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(only(err, "DependencyCycle").cycle).toEqual(["app/a", "app/b", "app/a"])
  })

  it("a three-cycle reports the whole path", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.entry]",
        'run = "entry"',
        'depends = ["a"]',
        "[daemons.a]",
        'run = "a"',
        'depends = ["b"]',
        "[daemons.b]",
        'run = "b"',
        'depends = ["c"]',
        "[daemons.c]",
        'run = "c"',
        'depends = ["a"]',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["DependencyCycle"])
    const p = only(err, "DependencyCycle")
    expect(p.cycle).toEqual(["app/a", "app/b", "app/c", "app/a"])
    expect(p.message).toBe("circular dependency: app/a -> app/b -> app/c -> app/a")
    expect(p.key).toBe("daemons.a.depends")
    expect(p.line).toBe(6)
  })

  it("a cycle across files and namespaces", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.x]", 'run = "x"', 'depends = ["app/y"]'),
      "app/supervisor.toml": toml("[daemons.y]", 'run = "y"', 'depends = ["global/x"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "DependencyCycle")
    expect(p.cycle).toEqual(["global/x", "app/y", "global/x"])
    expect(p.file).toBe(sb.path("home/.config/supervisor/config.toml"))
    expect(p.line).toBe(3)
  })

  it("a cycle created by a .local override", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.a]", 'run = "a"', 'depends = ["b"]', "[daemons.b]", 'run = "b"'),
      "app/supervisor.local.toml": toml("[daemons.b]", 'depends = ["a"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(only(err, "DependencyCycle").cycle).toEqual(["app/a", "app/b", "app/a"])
  })
})

describe("TOML syntax errors (TomlSyntaxError)", () => {
  it("reports the line of the error", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'dir = "unterminated', "retry = 1"),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["TomlSyntaxError"])
    const p = only(err, "TomlSyntaxError")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.message).toMatch(/^TOML parse error: .+ \(column \d+\)$/)
    expect(p.message).toContain("unterminated string")
    expect(p.hint).toContain("toml.io")
  })

  it("names an unterminated string as such, in both quotes; a closed one with a bad character is not", async () => {
    for (const [line, unterminated] of [
      ["dir = 'single", true],
      ['run = "with \\" escaped quote', true],
      ['run = "bell \u0007 in it"', false],
    ] as const) {
      const sb = sandbox()
      sb.write({ "app/supervisor.toml": toml("[daemons.web]", line, "retry = 1") })
      const p = only(await loadErr(sb, { cwd: "app" }), "TomlSyntaxError")
      expect(p.line, line).toBe(2)
      expect(p.message.includes("unterminated string"), `${line}: ${p.message}`).toBe(unterminated)
    }
  })

  it("reports an unclosed table header", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("# header", "", "[daemons.web", 'run = "web"') })
    const err = await loadErr(sb, { cwd: "app" })
    expect(only(err, "TomlSyntaxError").line).toBe(3)
  })

  it("reports a duplicate key", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "a"', 'run = "b"') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "TomlSyntaxError")
    expect(p.line).toBe(3)
  })
})

describe("unknown keys (UnknownKey)", () => {
  it("suggests the closest key for a typo in a daemon", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "retyr = 3") })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["UnknownKey"])
    const p = only(err, "UnknownKey")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe("daemons.web.retyr")
    expect(p.message).toBe('unknown key "retyr"')
    expect(p.hint).toBe('did you mean "retry"?')
  })

  it.each([
    ["[deamons.web]", "deamons", "daemons"],
    ["[settings.supervisr]", "settings.supervisr", "supervisor"],
    ["[daemons.web]\nready_prot = 3", "daemons.web.ready_prot", "ready_port"],
    ["[daemons.web]\nhooks = { on_redy = 'x' }", "daemons.web.hooks.on_redy", "on_ready"],
    ["[settings.supervisor]\nstop_timout = '1s'", "settings.supervisor.stop_timout", "stop_timeout"],
  ])("%s → %s suggests %j", async (text, key, suggestion) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": `${text}\n` })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "UnknownKey")
    expect(p.key).toBe(key)
    expect(p.hint).toBe(`did you mean "${suggestion}"?`)
    expect(p.line).toBeDefined()
  })

  it("lists the known keys when nothing is close", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "zzzzzzzz = 1") })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "UnknownKey")
    expect(p.hint).toMatch(/^known keys here: /)
    expect(p.hint).toContain("run")
    expect(p.hint).toContain("depends")
  })
})

describe("wrong value types (InvalidValue)", () => {
  it.each([
    ['retry = "often"', "daemons.web.retry", '"often"'],
    ["port = 70000", "daemons.web.port", "65535"],
    ['watch_mode = "fast"', "daemons.web.watch_mode", '"fast"'],
    ['auto = ["start", "restart"]', "daemons.web.auto[1]", "restart"],
    ["cpu_limit = -5", "daemons.web.cpu_limit", "positive"],
    ['memory_limit = "lots"', "daemons.web.memory_limit", "lots"],
    ['stop_signal = "SIGKILL"', "daemons.web.stop_signal", "SIGKILL"],
    ["env = { A = [1] }", "daemons.web.env.A", "[1]"],
    ['ready_http = "{{ nope }}"', "daemons.web.ready_http", "nope"],
  ])("%s", async (line, key, mention) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', line) })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidValue"])
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe(key)
    expect(p.message.length).toBeGreaterThan(5)
    expect(p.message).toContain(mention)
  })

  it("an empty run is invalid", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "  "') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("daemons.web.run")
    expect(p.line).toBe(2)
    expect(p.message).toContain("empty")
  })

  it("a bad setting value points at its line", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[settings.supervisor]", 'user = "me"', 'stop_timeout = "soon"') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("settings.supervisor.stop_timeout")
    expect(p.line).toBe(3)
    expect(p.message).toContain('"soon"')
  })

  it("a number where a duration string goes, and a negative retry count: one lower-case 'expected'", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "x"',
        "retry = -1",
        "[settings.supervisor]",
        "stop_timeout = 5",
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const messages = err.problems.map((p) => `${p.key}: ${p.message}`)
    expect(messages).toContain("daemons.web.retry: expected a non-negative number, actual -1")
    expect(messages).toContain(
      'settings.supervisor.stop_timeout: expected a duration string such as "5s", "500ms" or "1m 30s"',
    )
  })

  it("problems are listed in line order, whichever check found them", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.a]",
        'run = "x"',
        'depends = ["nope"]',
        "[daemons.b]",
        'run = "y"',
        'retry = "often"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(err.problems.map((p) => [p.key, p.line])).toEqual([
      ["daemons.a.depends[0]", 3],
      ["daemons.b.retry", 6],
    ])
  })

  it("a daemon that is not a table", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons]", 'web = "npm start"') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("daemons.web")
    expect(p.line).toBe(2)
  })
})

describe("other daemon-level errors", () => {
  it("a daemon without `run` in any file (MissingRun)", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.ok]", 'run = "ok"', "[daemons.web]", 'dir = "web"', "retry = 2"),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["MissingRun"])
    const p = only(err, "MissingRun")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe("daemons.web.run")
    expect(p.message).toContain("app/web")
    expect(p.message).toContain("run")
    expect(p.hint).toContain("[daemons.web]")
  })

  it("a .local override of a daemon nobody defines (MissingRun on the .local file)", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml("[daemons.wbe]", "retry = 1"),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "MissingRun")
    expect(p.file).toBe(sb.path("app/supervisor.local.toml"))
    expect(p.line).toBe(1)
    expect(p.key).toBe("daemons.wbe.run")
  })

  it("`[slugs]` in a project file (MisplacedSlugs)", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "", "[slugs.web]", 'dir = "."') })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["MisplacedSlugs"])
    const p = only(err, "MisplacedSlugs")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe("slugs")
    expect(p.message).toContain("user-level")
    expect(p.hint).toBe("move it to ~/.config/supervisor/config.toml")
  })

  it("`[slugs]` in the system config (MisplacedSlugs)", async () => {
    const sb = sandbox()
    sb.write({ "etc/supervisor/config.toml": toml("[slugs]", 'web = { dir = "/srv/web" }') })
    const err = await loadErr(sb, { cwd: "w" })
    const p = only(err, "MisplacedSlugs")
    expect(p.file).toBe(sb.path("etc/supervisor/config.toml"))
    expect(p.line).toBe(1)
  })

  it("a template naming an unknown daemon (InvalidTemplate)", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.db]",
        'run = "db"',
        "port = 5432",
        "[daemons.web]",
        'run = "web"',
        'ready_port = "{{ daemons.dbb.port }}"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidTemplate"])
    const p = only(err, "InvalidTemplate")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(6)
    expect(p.key).toBe("daemons.web.ready_port")
    expect(p.message).toContain("{{ daemons.dbb.port }}")
    expect(p.message).toContain('"dbb"')
    expect(p.hint).toBe("did you mean {{ daemons.db.port }}?")
  })

  it.each([
    ['ready_http = "http://localhost:{{ daemons.ghost.port }}/health"', "daemons.web.ready_http"],
    ['ready_cmd = "nc -z localhost {{ daemons.ghost.port }}"', "daemons.web.ready_cmd"],
    ['ready_output = "listening on {{ daemons.ghost.port }}"', "daemons.web.ready_output"],
    [
      'ready_http = { url = "http://x:{{ daemons.global/ghost.port }}", status = [401] }',
      "daemons.web.ready_http",
    ],
  ])("InvalidTemplate in %s", async (line, key) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', line) })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidTemplate")
    expect(p.key).toBe(key)
    expect(p.line).toBe(3)
    expect(p.message).toContain("ghost")
  })

  it("a template in run or an env value naming an unknown daemon (InvalidTemplate): file, line and key", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "port = 3000",
        "[daemons.client]",
        "run = \"curl http://127.0.0.1:{{ daemons.nope.port }}/ && docker ps --format '{{.Names}}'\"",
        "[daemons.client.env]",
        'WEB = "http://127.0.0.1:{{ daemons.web.port }}"',
        'API = "http://127.0.0.1:{{ daemons.api.port }}"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidTemplate", "InvalidTemplate"])
    const [run, env] = err.problems
    expect(run).toMatchObject({ file: sb.path("app/supervisor.toml"), line: 5, key: "daemons.client.run" })
    expect(run!.message).toBe(
      'template {{ daemons.nope.port }} names "nope", which is not a configured daemon',
    )
    expect(run!.hint).toBe("known daemons: app/web, app/client")
    expect(env).toMatchObject({
      file: sb.path("app/supervisor.toml"),
      line: 8,
      key: "daemons.client.env.API",
    })
    expect(env!.message).toContain('"api"')
  })

  it("in run and env, a {{ daemons. }} placeholder that is not a port is an error; other {{ }} text is not", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "echo {{ daemons.web.pid }}"',
        'env = { A = "{{ daemon.web.port }}", B = "{{ .Names }}" }',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(err.problems.map((p) => [p.key, p.message])).toEqual([
      [
        "daemons.web.run",
        'unknown template variable "daemons.web.pid"; did you mean {{ daemons.web.port }}?',
      ],
      [
        "daemons.web.env.A",
        'unknown template variable "daemon.web.port"; did you mean {{ daemons.web.port }}?',
      ],
    ])
  })

  it("templates naming existing daemons, short or qualified, are fine", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis"', "port = 6379"),
      "app/supervisor.toml": toml(
        "[daemons.db]",
        'run = "db"',
        "[daemons.web]",
        'run = "web"',
        'ready_port = "{{ daemons.db.port }}"',
        'ready_cmd = "redis-cli -p {{ daemons.global/redis.port }} ping"',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.ready_port).toEqual({ port: "{{ daemons.db.port }}" })
    expect(config.daemons["app/web"]!.config.ready_cmd).toEqual({
      run: "redis-cli -p {{ daemons.global/redis.port }} ping",
    })
  })

  it("a hook's unknown template name is an error naming the hook's key and the closest name", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "[daemons.web.hooks]",
        'on_ready = "echo {{ daemon.nmae }}"',
        'on_output = { run = "echo {{ settings.proxy.tdl }}", filter = "x" }',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(err.problems.map((p) => [p.line, p.key, p.message])).toEqual([
      [
        4,
        "daemons.web.hooks.on_ready",
        'unknown template variable "daemon.nmae"; did you mean {{ daemon.name }}?',
      ],
      [
        5,
        "daemons.web.hooks.on_output.run",
        'unknown template variable "settings.proxy.tdl"; did you mean {{ settings.proxy.tld }}?',
      ],
    ])
  })

  it("{{ daemon.port }} and {{ daemon.ports[N] }} need ports the daemon declares (InvalidTemplate)", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "serve --port {{ daemon.port }}"',
        "[daemons.api]",
        "port = [4000, 4001]",
        'run = "serve {{ daemon.ports[1] }} {{ daemon.ports[2] }}"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(err.problems.map((p) => [p._tag, p.line, p.key, p.message, p.hint])).toEqual([
      [
        "InvalidTemplate",
        2,
        "daemons.web.run",
        "template {{ daemon.port }} needs port 1 of app/web, which declares 0",
        "set `port` on it",
      ],
      [
        "InvalidTemplate",
        5,
        "daemons.api.run",
        "template {{ daemon.ports[2] }} needs port 3 of app/api, which declares 2",
        "its ports are {{ daemon.ports[0] }} to {{ daemon.ports[1] }}",
      ],
    ])
  })

  it("`port` together with deprecated `expected_port` (ConflictingKeys)", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "port = 3000", "expected_port = [3001]"),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["ConflictingKeys"])
    const p = only(err, "ConflictingKeys")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe("daemons.web.expected_port")
    expect(p.message).toContain("`port`")
    expect(p.message).toContain("`expected_port`")
    expect(p.hint).toContain("port")
  })

  it("`port` with `auto_bump_port` conflicts too", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "port = 3000", "auto_bump_port = true"),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "ConflictingKeys")
    expect(p.key).toBe("daemons.web.auto_bump_port")
    expect(p.line).toBe(4)
  })

  it("a file that exists but cannot be read (UnreadableFile)", async () => {
    const sb = sandbox()
    sb.mkdir("app/supervisor.toml")
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["UnreadableFile"])
    const p = only(err, "UnreadableFile")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.message).toContain("cannot read")
    expect(p.hint).toBeDefined()
  })
})

describe("environment overrides (InvalidEnvOverride)", () => {
  it("a bad SUPERVISOR_SUPERVISOR_STOP_TIMEOUT", async () => {
    const sb = sandbox()
    const err = await loadErr(sb, { cwd: "w", env: { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "forever" } })
    expect(tags(err)).toEqual(["InvalidEnvOverride"])
    const p = only(err, "InvalidEnvOverride")
    expect(p.file).toBe("environment variable SUPERVISOR_SUPERVISOR_STOP_TIMEOUT")
    expect(p.line).toBeUndefined()
    expect(p.key).toBe("settings.supervisor.stop_timeout")
    expect(p.message).toContain('"forever"')
    expect(p.message).toContain("duration")
    expect(p.hint).toBe("fix or unset SUPERVISOR_SUPERVISOR_STOP_TIMEOUT")
  })

  it.each([
    ["SUPERVISOR_SUPERVISOR_STOP_TIMEOUT", "5", "settings.supervisor.stop_timeout"],
    ["SUPERVISOR_WEB_AUTO_START", "yes", "settings.web.auto_start"],
    ["SUPERVISOR_SUPERVISOR_CPU_VIOLATION_THRESHOLD", "1.5", "settings.supervisor.cpu_violation_threshold"],
    ["SUPERVISOR_SUPERVISOR_CPU_VIOLATION_THRESHOLD", "0", "settings.supervisor.cpu_violation_threshold"],
    ["SUPERVISOR_WEB_BIND_PORT", "70000", "settings.web.bind_port"],
    ["SUPERVISOR_GENERAL_INTERVAL", "10 parsecs", "settings.general.interval"],
  ])("%s=%j", async (name, value, key) => {
    const sb = sandbox()
    const err = await loadErr(sb, { cwd: "w", env: { [name]: value } })
    const p = only(err, "InvalidEnvOverride")
    expect(p.file).toBe(`environment variable ${name}`)
    expect(p.key).toBe(key)
    expect(p.message).toContain(JSON.stringify(value))
  })
})

describe("several problems in one load", () => {
  it("are all reported at once, across files and the environment", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml('namespace = "me"'),
      "w/.config/supervisor.toml": toml("[daemons.broken", 'run = "x"'),
      "w/app/supervisor.toml": toml(
        '[daemons."bad name"]',
        'run = "x"',
        "[daemons.web]",
        'run = "web"',
        "retyr = 1",
        "[daemons.api]",
        'run = "api"',
        'depends = ["ghost"]',
        "[groups.g]",
        'daemons = ["x y"]',
      ),
      "w/app/supervisor.local.toml": toml('namespace = "other"'),
    })
    const err = await loadErr(sb, { cwd: "w/app", env: { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "abc" } })
    expect([...tags(err)].sort()).toEqual(
      [
        "TomlSyntaxError",
        "InvalidDaemonName",
        "UnknownKey",
        "InvalidGroupMember",
        "GlobalNamespaceRequired",
        "NamespaceMismatch",
        "InvalidDependency",
        "InvalidEnvOverride",
      ].sort(),
    )
    expect(only(err, "TomlSyntaxError").file).toBe(sb.path("w/.config/supervisor.toml"))
    expect(only(err, "GlobalNamespaceRequired").file).toBe(sb.path("home/.config/supervisor/config.toml"))
    expect(only(err, "NamespaceMismatch").file).toBe(sb.path("w/app/supervisor.local.toml"))
    // The error's message lists every problem as file:line: key: message.
    for (const p of err.problems) expect(err.message).toContain(formatProblem(p))
    expect(err.message).toContain(
      `${sb.path("w/app/supervisor.toml")}:5: daemons.web.retyr: unknown key "retyr"`,
    )
  })

  it("keeps deprecation warnings when loading fails", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [3000]",
        "[daemons.api]",
        'run = "api"',
        'depends = ["nope"]',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidDependency"])
    expect(err.warnings).toHaveLength(1)
    expect(err.warnings[0]).toContain("expected_port")
  })
})

describe("watch patterns", () => {
  it("a malformed glob is an InvalidValue naming file, line, key and what is wrong", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "x"', 'watch = ["*.js", "src/[ab.js"]'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe("daemons.web.watch[1]")
    expect(p.message).toBe(
      'not a valid glob: "src/[ab.js": "[" without a closing "]"; pair it, or escape it to match "[" itself ("\\\\[" in a TOML string)',
    )
  })

  it("valid globs load", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "x"',
        'watch = ["*.{js,ts}", "src/**/[!.]*", "a\\\\[b"]',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]?.config.watch).toEqual(["*.{js,ts}", "src/**/[!.]*", "a\\[b"])
  })
})

describe("automation keys: file, line, key and a fix", () => {
  it.each([
    [
      'watch = ["src/[ab.js"]',
      "daemons.web.watch[0]",
      'pair it, or escape it to match "[" itself ("\\\\[" in a TOML string)',
    ],
    ['watch = ["*.js", ""]', "daemons.web.watch[1]", "an empty pattern matches nothing; remove it"],
    [
      'cron = "*/5 * * * *"',
      "daemons.web.cron",
      'write 6: second minute hour day month weekday (e.g. "0 */5 * * * *")',
    ],
    ['cron = "every day"', "daemons.web.cron", "write 6: second minute hour day month weekday"],
    [
      'cron = { schedule = "0 0 3 * *", retrigger = "success" }',
      "daemons.web.cron.schedule",
      "write 6: second minute hour day month weekday",
    ],
    ['memory_limit = "lots"', "daemons.web.memory_limit", "write e.g. 512MB, 1GiB or 256KiB"],
    ["cpu_limit = -5", "daemons.web.cpu_limit", "expected a positive number: percent of one core"],
  ])("%s", async (line, key, fix) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', line) })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe(key)
    expect(p.message).toContain(fix)
  })
})
