import * as nodePath from "node:path"
import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { loadOk, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

/** The ten levels of the spec's load order, lowest precedence first, as paths relative to the sandbox. */
const LEVELS = [
  { label: "system", rel: "etc/supervisor/config.toml", level: "system" },
  { label: "user", rel: "home/.config/supervisor/config.toml", level: "user" },
  { label: "outer-config", rel: "w/.config/supervisor.toml", level: "project" },
  { label: "outer-config-local", rel: "w/.config/supervisor.local.toml", level: "project" },
  { label: "outer", rel: "w/supervisor.toml", level: "project" },
  { label: "outer-local", rel: "w/supervisor.local.toml", level: "project" },
  { label: "inner-config", rel: "w/app/.config/supervisor.toml", level: "project" },
  { label: "inner-config-local", rel: "w/app/.config/supervisor.local.toml", level: "project" },
  { label: "inner", rel: "w/app/supervisor.toml", level: "project" },
  { label: "inner-local", rel: "w/app/supervisor.local.toml", level: "project" },
] as const

describe("load order", () => {
  it("lists every loaded file in the spec's order with its level and namespace", async () => {
    const sb = sandbox()
    sb.write(Object.fromEntries(LEVELS.map((l) => [l.rel, `# ${l.label}\n`])))
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.files).toEqual([
      { path: sb.path("etc/supervisor/config.toml"), level: "system", namespace: "global" },
      { path: sb.path("home/.config/supervisor/config.toml"), level: "user", namespace: "global" },
      { path: sb.path("w/.config/supervisor.toml"), level: "project", namespace: "w" },
      { path: sb.path("w/.config/supervisor.local.toml"), level: "project", namespace: "w" },
      { path: sb.path("w/supervisor.toml"), level: "project", namespace: "w" },
      { path: sb.path("w/supervisor.local.toml"), level: "project", namespace: "w" },
      { path: sb.path("w/app/.config/supervisor.toml"), level: "project", namespace: "app" },
      { path: sb.path("w/app/.config/supervisor.local.toml"), level: "project", namespace: "app" },
      { path: sb.path("w/app/supervisor.toml"), level: "project", namespace: "app" },
      { path: sb.path("w/app/supervisor.local.toml"), level: "project", namespace: "app" },
    ])
    expect(config.cwd).toBe(sb.path("w/app"))
    expect(config.namespace).toBe("app")
    expect(config.daemons).toEqual({})
    expect(config.warnings).toEqual([])
  })

  it("loads nothing but defaults when no file exists", async () => {
    const sb = sandbox()
    const config = await loadOk(sb, { cwd: "empty/dir" })
    expect(config.files).toEqual([])
    expect(config.namespace).toBeUndefined()
    expect(config.daemons).toEqual({})
    expect(config.groups).toEqual({})
    expect(config.slugs).toEqual({})
  })

  it("walks from the root down to cwd only: not below cwd, not into siblings", async () => {
    const sb = sandbox()
    sb.write({
      "w/supervisor.toml": toml("[daemons.top]", 'run = "top"'),
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "w/app/src/deep/supervisor.toml": toml("[daemons.below]", 'run = "below"'),
      "w/other/supervisor.toml": toml("[daemons.sibling]", 'run = "sibling"'),
    })
    const config = await loadOk(sb, { cwd: "w/app/src" })
    expect(config.files.map((f) => f.path)).toEqual([
      sb.path("w/supervisor.toml"),
      sb.path("w/app/supervisor.toml"),
    ])
    expect(Object.keys(config.daemons).sort()).toEqual(["app/web", "w/top"])
    // The nearest project file is the one in w/app, even though cwd is below it.
    expect(config.namespace).toBe("app")
    expect(config.cwd).toBe(sb.path("w/app/src"))
  })

  it("records the nearest project file's namespace, not a global one", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis-server"') })
    const onlyGlobal = await loadOk(sb, { cwd: "w" })
    expect(onlyGlobal.namespace).toBeUndefined()
    expect(Object.keys(onlyGlobal.daemons)).toEqual(["global/redis"])

    sb.write({ "w/.config/supervisor.toml": toml('namespace = "fromconfig"') })
    const withProject = await loadOk(sb, { cwd: "w" })
    expect(withProject.namespace).toBe("fromconfig")
  })

  // Settings merge across every level regardless of namespace: each level overrides the one before it.
  it.each(LEVELS.slice(1).map((later, i) => ({ earlier: LEVELS[i]!, later })))(
    "$later.label overrides $earlier.label",
    async ({ earlier, later }) => {
      const sb = sandbox()
      sb.write({
        [earlier.rel]: toml(
          "[settings.general]",
          `tool_manager_bin = "${earlier.label}"`,
          "tool_manager = true",
        ),
        [later.rel]: toml("[settings.general]", `tool_manager_bin = "${later.label}"`),
      })
      const config = await loadOk(sb, { cwd: "w/app" })
      expect(config.settings.general.tool_manager_bin).toBe(later.label)
      // Key-level: the earlier file's other key survives.
      expect(config.settings.general.tool_manager).toBe(true)
      expect(config.files.map((f) => f.path)).toEqual([sb.path(earlier.rel), sb.path(later.rel)])
    },
  )

  it("the highest-precedence file wins when all ten set the same setting", async () => {
    const sb = sandbox()
    sb.write(
      Object.fromEntries(
        LEVELS.map((l) => [l.rel, toml("[settings.general]", `tool_manager_bin = "${l.label}"`)]),
      ),
    )
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(config.settings.general.tool_manager_bin).toBe("inner-local")
    expect(config.files).toHaveLength(10)
  })
})

describe("merging a daemon defined in several files", () => {
  it("merges key by key across the eight project files of one namespace, later files winning", async () => {
    const sb = sandbox()
    // The outer files declare namespace "app" so that all eight share it; .local files inherit it.
    sb.write({
      "w/.config/supervisor.toml": toml(
        'namespace = "app"',
        "[daemons.web]",
        'run = "outer-config"',
        "retry = 1",
        "ready_delay = 1",
      ),
      "w/.config/supervisor.local.toml": toml("[daemons.web]", 'run = "outer-config-local"', "retry = 2"),
      "w/supervisor.toml": toml('namespace = "app"', "[daemons.web]", 'run = "outer"', 'watch = ["*.js"]'),
      "w/supervisor.local.toml": toml("[daemons.web]", 'run = "outer-local"', 'user = "alice"'),
      "w/app/.config/supervisor.toml": toml("[daemons.web]", 'run = "inner-config"', "cpu_limit = 150"),
      "w/app/.config/supervisor.local.toml": toml(
        "[daemons.web]",
        'run = "inner-config-local"',
        'memory_limit = "512MB"',
      ),
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "inner"', "boot_start = true", "retry = 5"),
      "w/app/supervisor.local.toml": toml("[daemons.web]", 'run = "inner-local"', "tool_manager = true"),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(Object.keys(config.daemons)).toEqual(["app/web"])
    const web = config.daemons["app/web"]!
    expect(web.id).toEqual({ namespace: "app", name: "web", qualified: "app/web", safe_path: "app--web" })
    expect(web.config.run).toBe("inner-local")
    expect(web.config.retry).toBe(5)
    expect(web.config.ready_delay).toBe(1)
    expect(web.config.watch).toEqual(["*.js"])
    expect(web.config.user).toBe("alice")
    expect(web.config.cpu_limit).toBe(150)
    expect(web.config.memory_limit).toBe(512_000_000)
    expect(web.config.boot_start).toBe(true)
    expect(web.config.tool_manager).toBe(true)
    // No file set `dir`: it defaults to the project directory of the first file that defined the daemon.
    expect(web.config.dir).toBe(sb.path("w"))
    expect(web.source).toBe(sb.path("w/app/supervisor.local.toml"))
    expect(web.sources).toEqual([
      sb.path("w/.config/supervisor.toml"),
      sb.path("w/.config/supervisor.local.toml"),
      sb.path("w/supervisor.toml"),
      sb.path("w/supervisor.local.toml"),
      sb.path("w/app/.config/supervisor.toml"),
      sb.path("w/app/.config/supervisor.local.toml"),
      sb.path("w/app/supervisor.toml"),
      sb.path("w/app/supervisor.local.toml"),
    ])
  })

  it("merges the system and user definitions of a global daemon, the user level winning", async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis-system"', "retry = 3"),
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis-user"'),
    })
    const config = await loadOk(sb, { cwd: "w" })
    const redis = config.daemons["global/redis"]!
    expect(redis.config.run).toBe("redis-user")
    expect(redis.config.retry).toBe(3)
    expect(redis.source).toBe(sb.path("home/.config/supervisor/config.toml"))
    expect(redis.sources).toEqual([
      sb.path("etc/supervisor/config.toml"),
      sb.path("home/.config/supervisor/config.toml"),
    ])
  })

  it("replaces table values (env) as a whole rather than merging them", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "[daemons.web.env]", 'A = "1"', 'B = "2"'),
      "app/supervisor.local.toml": toml("[daemons.web]", 'env = { B = "local", C = 3 }'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.env).toEqual({ B: "local", C: "3" })
  })

  it("keeps same-named daemons of different namespaces apart", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.web]", 'run = "global web"'),
      "w/supervisor.toml": toml("[daemons.web]", 'run = "w web"'),
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "app web"'),
    })
    const config = await loadOk(sb, { cwd: "w/app" })
    expect(Object.keys(config.daemons).sort()).toEqual(["app/web", "global/web", "w/web"])
    expect(config.daemons["global/web"]!.config.run).toBe("global web")
    expect(config.daemons["w/web"]!.config.run).toBe("w web")
    expect(config.daemons["app/web"]!.config.run).toBe("app web")
    expect(config.daemons["w/web"]!.sources).toEqual([sb.path("w/supervisor.toml")])
  })

  it("lets a .local file override a few keys of a daemon its sibling defines", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "npm start"',
        "port = 3000",
        'depends = ["db"]',
        "[daemons.db]",
        'run = "db"',
      ),
      "app/supervisor.local.toml": toml("[daemons.web]", "port = 4000"),
    })
    const config = await loadOk(sb, { cwd: "app" })
    const web = config.daemons["app/web"]!
    expect(web.config.run).toBe("npm start")
    expect(web.config.port).toEqual({ expect: [4000], bump: false })
    expect(web.config.depends).toEqual(["app/db"])
    expect(web.source).toBe(sb.path("app/supervisor.local.toml"))
    expect(config.daemons["app/db"]!.sources).toEqual([sb.path("app/supervisor.toml")])
  })

  it("applies the documented defaults to a daemon with only `run`", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "exec node server.js"') })
    const config = await loadOk(sb, { cwd: "app" })
    const c = config.daemons["app/web"]!.config
    expect(c.run).toBe("exec node server.js")
    expect(c.dir).toBe(sb.path("app"))
    expect(c.env).toEqual({})
    expect(c.retry).toBe(0)
    expect(c.auto).toEqual([])
    expect(c.depends).toEqual([])
    expect(c.watch).toEqual([])
    expect(c.watch_mode).toBe("native")
    expect(c.boot_start).toBe(false)
    expect(c.hooks).toEqual({})
    expect(c.stop_signal).toEqual({ signal: "SIGTERM" })
    expect(c.port).toBeUndefined()
    expect(c.user).toBeUndefined()
    expect(c.ready_delay).toBeUndefined()
    expect(c.tool_manager).toBeUndefined()
  })
})

describe("config directory overrides", () => {
  it("SUPERVISOR_SYSTEM_CONFIG_DIR points the system level elsewhere", async () => {
    const sb = sandbox()
    sb.write({ "alt/system/config.toml": toml("[daemons.sys]", 'run = "sys"') })
    const config = await loadOk(sb, {
      cwd: "w",
      env: { SUPERVISOR_SYSTEM_CONFIG_DIR: sb.path("alt/system") },
    })
    expect(config.files).toEqual([
      { path: sb.path("alt/system/config.toml"), level: "system", namespace: "global" },
    ])
    expect(config.daemons["global/sys"]!.config.dir).toBe(sb.path("alt/system"))
  })

  it("SUPERVISOR_CONFIG_DIR replaces the user level; ~/.config/supervisor is then not read", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.default]", 'run = "default"'),
      "alt/user/config.toml": toml("[daemons.alt]", 'run = "alt"'),
    })
    const config = await loadOk(sb, { cwd: "w", env: { SUPERVISOR_CONFIG_DIR: sb.path("alt/user") } })
    expect(config.files).toEqual([
      { path: sb.path("alt/user/config.toml"), level: "user", namespace: "global" },
    ])
    expect(Object.keys(config.daemons)).toEqual(["global/alt"])
  })

  it("without SUPERVISOR_CONFIG_DIR the user level is $HOME/.config/supervisor/config.toml", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis"') })
    const config = await loadOk(sb, {
      cwd: "w",
      replaceEnv: { HOME: sb.home, SUPERVISOR_SYSTEM_CONFIG_DIR: sb.systemDir },
    })
    expect(config.files).toEqual([
      { path: sb.path("home/.config/supervisor/config.toml"), level: "user", namespace: "global" },
    ])
  })

  it("an empty SUPERVISOR_CONFIG_DIR falls back to the default user directory", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis"') })
    const config = await loadOk(sb, { cwd: "w", env: { SUPERVISOR_CONFIG_DIR: "" } })
    expect(Object.keys(config.daemons)).toEqual(["global/redis"])
  })

  it("the `home` option takes precedence over $HOME for the user directory and ~ expansion", async () => {
    const sb = sandbox()
    const otherHome = sb.path("other-home")
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.wrong]", 'run = "wrong"'),
      "other-home/.config/supervisor/config.toml": toml("[daemons.right]", 'run = "right"', 'dir = "~/code"'),
    })
    const config = await loadOk(sb, {
      cwd: "w",
      home: otherHome,
      replaceEnv: { HOME: sb.home, SUPERVISOR_SYSTEM_CONFIG_DIR: sb.systemDir },
    })
    expect(Object.keys(config.daemons)).toEqual(["global/right"])
    expect(config.daemons["global/right"]!.config.dir).toBe(nodePath.join(otherHome, "code"))
  })
})

describe("settings merged through the load order", () => {
  it("merges user-level then project settings key by key", async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml("[settings.web]", "bind_port = 4000", 'bind_address = "127.0.0.2"'),
      "home/.config/supervisor/config.toml": toml(
        "[settings.supervisor]",
        'stop_timeout = "2s"',
        "cpu_violation_threshold = 4",
        "[settings.web]",
        "bind_port = 4100",
      ),
      "app/supervisor.toml": toml("[settings.supervisor]", 'stop_timeout = "3s"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Duration.toMillis(config.settings.supervisor.stop_timeout)).toBe(3000)
    expect(config.settings.supervisor.cpu_violation_threshold).toBe(4)
    expect(config.settings.web.bind_port).toBe(4100)
    expect(config.settings.web.bind_address).toBe("127.0.0.2")
  })
})
