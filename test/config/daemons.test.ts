import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("dir resolution", () => {
  it("defaults to the project directory of supervisor.toml", async () => {
    const sb = sandbox()
    sb.write({ "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "w/app/src" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path("w/app"))
  })

  it("defaults to the parent of .config for files inside .config", async () => {
    const sb = sandbox()
    sb.write({
      "w/app/.config/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "w/app/.config/supervisor.local.toml": toml("[daemons.worker]", 'run = "worker"'),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path("w/app"))
    expect(config.daemons["app/worker"]!.config.dir).toBe(sb.path("w/app"))
  })

  it("defaults to the config directory for global daemons", async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml("[daemons.sys]", 'run = "sys"'),
      "home/.config/supervisor/config.toml": toml("[daemons.usr]", 'run = "usr"'),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(config.daemons["global/sys"]!.config.dir).toBe(sb.systemDir)
    expect(config.daemons["global/usr"]!.config.dir).toBe(sb.userDir)
  })

  it.each([
    ["sub/dir", "w/app/sub/dir"],
    ["./here", "w/app/here"],
    ["..", "w"],
    ["../sibling", "w/sibling"],
    [".", "w/app"],
  ])("a relative dir %j resolves from the project directory", async (dir, expected) => {
    const sb = sandbox()
    sb.write({
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"', `dir = ${JSON.stringify(dir)}`),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path(expected))
  })

  it("a relative dir in a .config file resolves from the parent of .config", async () => {
    const sb = sandbox()
    sb.write({ "w/app/.config/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'dir = "data"') })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path("w/app/data"))
  })

  it("`~` and `~/x` expand to HOME", async () => {
    const sb = sandbox()
    sb.write({
      "w/app/supervisor.toml": toml(
        "[daemons.home]",
        'run = "a"',
        'dir = "~"',
        "[daemons.code]",
        'run = "b"',
        'dir = "~/code/project"',
      ),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/home"]!.config.dir).toBe(sb.home)
    expect(config.daemons["app/code"]!.config.dir).toBe(nodePath.join(sb.home, "code/project"))
  })

  it("absolute dirs are kept", async () => {
    const sb = sandbox()
    const abs = sb.path("elsewhere/abs")
    sb.write({
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"', `dir = ${JSON.stringify(abs)}`),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(abs)
  })

  it.each([
    ["$HOME/x", "w/app/$HOME/x"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
    ["${PROJECT}/x", "w/app/${PROJECT}/x"],
    ["~user/x", "w/app/~user/x"],
    ["x/~/y", "w/app/x/~/y"],
  ])("other shell-style text %j is left unexpanded", async (dir, expected) => {
    const sb = sandbox()
    sb.write({
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"', `dir = ${JSON.stringify(dir)}`),
    })
    const config = await loadOk(sb, { cwd: "w/app", env: { PROJECT: "nope" } })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path(expected))
  })

  it("a dir set in an outer file resolves from that file's directory, even when merged into an inner one", async () => {
    const sb = sandbox()
    sb.write({
      "w/supervisor.toml": toml('namespace = "app"', "[daemons.web]", 'run = "web"', 'dir = "data"'),
      "w/app/supervisor.toml": toml("[daemons.web]", "retry = 1"),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path("w/data"))
  })

  it("a later file's dir replaces the earlier one and resolves from the later file", async () => {
    const sb = sandbox()
    sb.write({
      "w/supervisor.toml": toml('namespace = "app"', "[daemons.web]", 'run = "web"', 'dir = "data"'),
      "w/app/supervisor.toml": toml("[daemons.web]", 'dir = "local"'),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.dir).toBe(sb.path("w/app/local"))
  })
})

describe("deprecated port keys", () => {
  it("expected_port alone becomes port { expect, bump = false } with a deprecation warning", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "expected_port = [3000, 3001]") })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [3000, 3001], bump: false })
    expect(config.warnings).toHaveLength(1)
    const w = config.warnings[0]!
    expect(w).toContain(`${sb.path("app/supervisor.toml")}:3`)
    expect(w).toContain("daemons.web.expected_port")
    expect(w).toContain("deprecated")
    expect(w).toContain("port = { expect = [3000, 3001], bump = false }")
  })

  it("auto_bump_port = true uses port_bump_attempts' default of 10", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [8080]",
        "auto_bump_port = true",
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [8080], bump: 10 })
    expect(config.warnings).toHaveLength(1)
    expect(config.warnings[0]).toContain("`expected_port`, `auto_bump_port` are deprecated")
    expect(config.warnings[0]).toContain("bump = 10")
  })

  it("auto_bump_port = true alone takes settings.supervisor.port_bump_attempts", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[settings.supervisor]", "port_bump_attempts = 4"),
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [8080]",
        "auto_bump_port = true",
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [8080], bump: 4 })
    expect(config.warnings[0]).toContain("bump = 4")
  })

  it("port_bump_attempts sets the bump count when auto_bump_port is on", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [8080]",
        "auto_bump_port = true",
        "port_bump_attempts = 3",
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [8080], bump: 3 })
    expect(config.warnings[0]).toContain(
      "`expected_port`, `auto_bump_port`, `port_bump_attempts` are deprecated",
    )
  })

  it("port_bump_attempts without auto_bump_port does not bump", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [8080]",
        "auto_bump_port = false",
        "port_bump_attempts = 3",
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [8080], bump: false })
    expect(config.warnings).toHaveLength(1)
  })

  it("deprecated keys merge across files before normalisation", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "expected_port = [5000]"),
      "app/supervisor.local.toml": toml("[daemons.web]", "auto_bump_port = true"),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [5000], bump: 10 })
    expect(config.warnings).toHaveLength(1)
    expect(config.warnings[0]).toContain(sb.path("app/supervisor.toml"))
  })

  it("one warning per daemon using deprecated keys", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.a]",
        'run = "a"',
        "expected_port = [1000]",
        "[daemons.b]",
        'run = "b"',
        "expected_port = [2000]",
        "[daemons.c]",
        'run = "c"',
        "port = 3000",
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.warnings).toHaveLength(2)
    expect(config.warnings[0]).toContain("daemons.a.expected_port")
    expect(config.warnings[1]).toContain("daemons.b.expected_port")
  })

  it.each([
    ["3000", { expect: [3000], bump: false }],
    ["[3000, 3001]", { expect: [3000, 3001], bump: false }],
    ["{ expect = [3000], bump = true }", { expect: [3000], bump: true }],
    ["{ expect = [3000], bump = 5 }", { expect: [3000], bump: 5 }],
    ["{ expect = [3000] }", { expect: [3000], bump: false }],
  ])("port = %s normalises without warnings", async (value, expected) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', `port = ${value}`) })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual(expected)
    expect(config.warnings).toEqual([])
  })
})

describe("dependencies", () => {
  it("short IDs resolve in the namespace of the file that wrote them", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        'depends = ["db", "cache"]',
        "[daemons.db]",
        'run = "db"',
        "[daemons.cache]",
        'run = "cache"',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.depends).toEqual(["app/db", "app/cache"])
  })

  it("qualified IDs reach the global namespace", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis-server"'),
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["global/redis"]'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.depends).toEqual(["global/redis"])
  })

  it("short IDs in a global file resolve to global daemons", async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml("[daemons.postgres]", 'run = "postgres"'),
      "home/.config/supervisor/config.toml": toml(
        "[daemons.redis]",
        'run = "redis-server"',
        "[daemons.cache]",
        'run = "cache"',
        'depends = ["redis", "postgres"]',
      ),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(config.daemons["global/cache"]!.config.depends).toEqual(["global/redis", "global/postgres"])
  })

  it("qualified IDs reach another project namespace up the tree", async () => {
    const sb = sandbox()
    sb.write({
      "w/supervisor.toml": toml("[daemons.db]", 'run = "db"'),
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["w/db"]'),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.daemons["app/web"]!.config.depends).toEqual(["w/db"])
  })

  it("short IDs written in a .local file resolve in the shared namespace", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        'namespace = "shop"',
        "[daemons.web]",
        'run = "web"',
        "[daemons.db]",
        'run = "db"',
      ),
      "app/supervisor.local.toml": toml("[daemons.web]", 'depends = ["db"]'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["shop/web"]!.config.depends).toEqual(["shop/db"])
  })

  it("a later depends list replaces the earlier one", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        'depends = ["db"]',
        "[daemons.db]",
        'run = "db"',
        "[daemons.cache]",
        'run = "cache"',
      ),
      "app/supervisor.local.toml": toml("[daemons.web]", 'depends = ["cache"]'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.depends).toEqual(["app/cache"])
  })

  it("a diamond of dependencies is not a cycle", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        'depends = ["api", "worker"]',
        "[daemons.api]",
        'run = "api"',
        'depends = ["db"]',
        "[daemons.worker]",
        'run = "worker"',
        'depends = ["db"]',
        "[daemons.db]",
        'run = "db"',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.depends).toEqual(["app/api", "app/worker"])
  })
})

describe("groups", () => {
  it("qualifies members in the declaring file's namespace", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[daemons.redis]",
        'run = "redis"',
        "[groups.infra]",
        'daemons = ["redis"]',
      ),
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "[groups.dev]",
        'daemons = ["web", "global/redis", "other/thing"]',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.groups).toEqual({
      infra: { daemons: ["global/redis"], source: sb.path("home/.config/supervisor/config.toml") },
      dev: { daemons: ["app/web", "global/redis", "other/thing"], source: sb.path("app/supervisor.toml") },
    })
  })

  it("a member that does not exist is kept (reported when the group is used)", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[groups.dev]", 'daemons = ["ghost"]') })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.groups.dev!.daemons).toEqual(["app/ghost"])
  })

  it("later definitions replace earlier ones wholesale", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[groups.dev]", 'daemons = ["redis", "postgres"]'),
      "app/supervisor.toml": toml('namespace = "shop"', "[groups.dev]", 'daemons = ["web"]'),
      "app/supervisor.local.toml": toml("[groups.dev]", 'daemons = ["web", "worker"]'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.groups.dev).toEqual({
      daemons: ["shop/web", "shop/worker"],
      source: sb.path("app/supervisor.local.toml"),
    })
  })

  it("an empty group is allowed", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[groups.none]", "daemons = []") })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.groups.none).toEqual({ daemons: [], source: sb.path("app/supervisor.toml") })
  })
})

describe("slugs", () => {
  it("reads slugs from the user config, expanding ~ and defaulting the daemon to the slug", async () => {
    const sb = sandbox()
    const abs = sb.path("srv/api")
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[slugs.myapp]",
        'dir = "~/code/myapp"',
        "[slugs.api]",
        `dir = ${JSON.stringify(abs)}`,
        'daemon = "server"',
        "[slugs.home]",
        'dir = "~"',
        "[slugs.rel]",
        'dir = "projects/rel"',
      ),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(config.slugs).toEqual({
      myapp: { dir: nodePath.join(sb.home, "code/myapp"), daemon: "myapp" },
      api: { dir: abs, daemon: "server" },
      home: { dir: sb.home, daemon: "home" },
      rel: { dir: nodePath.join(sb.userDir, "projects/rel"), daemon: "rel" },
    })
  })

  it("an invalid slug name is an InvalidValue", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml('[slugs."my app"]', 'dir = "~/x"') })
    const err = await loadErr(sb, { cwd: "w" })
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("home/.config/supervisor/config.toml"))
    expect(p.key).toBe("slugs.my app")
    expect(p.line).toBe(1)
    expect(p.message).toContain('"my app"')
  })

  it("a slug with a dot is an InvalidValue naming the rule: it is one label of a host name", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[slugs]", '"my.shop" = { dir = "~/x" }') })
    const p = only(await loadErr(sb, { cwd: "w" }), "InvalidValue")
    expect(p.key).toBe("slugs.my.shop")
    expect(p.message).toContain("[A-Za-z0-9_-]+")
  })

  it("a slug without dir is an InvalidValue", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[slugs.app]", 'daemon = "web"') })
    const err = await loadErr(sb, { cwd: "w" })
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("slugs.app.dir")
    expect(p.line).toBe(1)
    expect(p.message).toContain("missing")
  })

  it("a slug daemon that is not a valid daemon name is an InvalidValue", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[slugs.app]", 'dir = "~/x"', 'daemon = "a--b"') })
    const err = await loadErr(sb, { cwd: "w" })
    expect(tags(err)).toEqual(["InvalidValue"])
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("slugs.app.daemon")
    expect(p.line).toBe(3)
  })
})
