import { Duration, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { listenerPlans } from "../../src/host/listeners.js"
import { loadErr, loadOk, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()
const ms = Duration.toMillis

describe("settings", () => {
  it("uses the defaults when nothing is set", async () => {
    const sb = sandbox()
    const { settings } = await loadOk(sb, { cwd: "w" })
    expect(ms(settings.general.interval)).toBe(10_000)
    expect(settings.general.tool_manager).toBe(false)
    expect(settings.general.tool_manager_bin).toBe("mise")
    expect(settings.general.shell).toBe("sh -c")
    expect(settings.supervisor.user).toBeUndefined()
    expect(ms(settings.supervisor.stop_timeout)).toBe(5000)
    expect(ms(settings.supervisor.watch_poll_interval)).toBe(500)
    expect(ms(settings.supervisor.watch_interval)).toBe(10_000)
    expect(settings.supervisor.cpu_violation_threshold).toBe(3)
    expect(ms(settings.supervisor.ready_check_interval)).toBe(500)
    expect(settings.supervisor.auto_start).toBe(true)
    expect(settings.supervisor.container).toBe(false)
    expect(settings.web).toEqual({
      auto_start: false,
      bind_address: "127.0.0.1",
      bind_port: 3120,
      port_attempts: 10,
      allow_non_loopback: false,
      log_lines: 100,
      base_path: "",
    })
    expect(settings.api).toEqual({
      auto_start: false,
      bind_address: "127.0.0.1",
      bind_port: 3121,
      port_attempts: 10,
      allow_non_loopback: false,
      tls: false,
    })
  })

  it("fills defaults for the keys a file leaves unset", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[settings.supervisor]", 'stop_timeout = "1m 30s"', 'user = "www"'),
    })
    const { settings } = await loadOk(sb, { cwd: "app" })
    expect(ms(settings.supervisor.stop_timeout)).toBe(90_000)
    expect(settings.supervisor.user).toBe("www")
    expect(ms(settings.supervisor.watch_interval)).toBe(10_000)
    expect(settings.supervisor.cpu_violation_threshold).toBe(3)
  })

  it("warns about each setting of a project file that only the supervisor reads; not about auto_start or the watch settings", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[settings.supervisor]", 'stop_timeout = "2s"'),
      "app/supervisor.toml": toml(
        "[general]",
        'shell = "bash -c"',
        "[settings.supervisor]",
        "auto_start = false",
        'stop_timeout = "1s"',
        'file_watch_debounce = "3s"',
        'watch_poll_interval = "2s"',
      ),
    })
    const config = await loadOk(sb, { cwd: "app" })
    const file = `${sb.root}/app/supervisor.toml`
    const where =
      "has no effect in a project file: the supervisor reads its settings from ~/.config/supervisor/config.toml (and /etc/supervisor/config.toml) and its environment when it starts; move it there"
    expect(config.warnings).toEqual([
      `${file}: settings.general.shell ${where}`,
      `${file}: settings.supervisor.stop_timeout ${where}`,
    ])
  })

  it("a numeric user is read as a string UID", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[settings.supervisor]", "user = 1000") })
    const { settings } = await loadOk(sb, { cwd: "w" })
    expect(settings.supervisor.user).toBe("1000")
  })

  it('web.base_path takes pitchfork\'s form ("ps") as well as "/ps"; a space is refused naming the key', async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[settings.web]", 'base_path = "ps"') })
    expect((await loadOk(sb, { cwd: "w" })).settings.web.base_path).toBe("ps")
    sb.write({ "home/.config/supervisor/config.toml": toml("[settings.web]", 'base_path = "/a b"') })
    const err = await loadErr(sb, { cwd: "w" })
    expect(err.problems.map((p) => p.message).join("\n")).toContain('a path such as "/supervisor"')
    expect(JSON.stringify(err.problems)).toContain("base_path")
  })

  it("merges user-level then project settings, key by key, later files winning", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[settings.general]",
        'interval = "30s"',
        "tool_manager = true",
        "[settings.api]",
        "auto_start = true",
      ),
      "w/supervisor.toml": toml(
        "[settings.general]",
        'interval = "20s"',
        "[settings.api]",
        "bind_port = 9000",
      ),
      "w/app/supervisor.local.toml": toml("[settings.general]", 'shell = "bash -c"'),
    })
    const { settings } = await loadOk(sb, { cwd: "w/app" })
    expect(ms(settings.general.interval)).toBe(20_000)
    expect(settings.general.tool_manager).toBe(true)
    expect(settings.general.shell).toBe("bash -c")
    expect(settings.api.auto_start).toBe(true)
    expect(settings.api.bind_port).toBe(9000)
  })

  it("a top-level [general] table equals [settings.general]", async () => {
    const sb = sandbox()
    sb.write({
      "a/supervisor.toml": toml(
        "[general]",
        'interval = "7s"',
        "tool_manager = true",
        'tool_manager_bin = "asdf"',
      ),
      "b/supervisor.toml": toml(
        "[settings.general]",
        'interval = "7s"',
        "tool_manager = true",
        'tool_manager_bin = "asdf"',
      ),
    })
    const a = await loadOk(sb, { cwd: "a" })
    const b = await loadOk(sb, { cwd: "b" })
    expect(ms(a.settings.general.interval)).toBe(7000)
    expect(a.settings.general.tool_manager).toBe(true)
    expect(a.settings.general.tool_manager_bin).toBe("asdf")
    expect(a.settings).toEqual(b.settings)
  })

  it("[general] and [settings.general] merge across files like the same table", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[general]", 'interval = "1s"', 'shell = "zsh -c"'),
      "app/supervisor.toml": toml("[settings.general]", 'interval = "2s"'),
      "app/supervisor.local.toml": toml("[general]", "tool_manager = true"),
    })
    const { settings } = await loadOk(sb, { cwd: "app" })
    expect(ms(settings.general.interval)).toBe(2000)
    expect(settings.general.shell).toBe("zsh -c")
    expect(settings.general.tool_manager).toBe(true)
  })

  it("[general] and [settings.general] in one file combine their keys", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[general]", 'interval = "4s"', "[settings.general]", 'shell = "dash -c"'),
    })
    const { settings } = await loadOk(sb, { cwd: "app" })
    expect(ms(settings.general.interval)).toBe(4000)
    expect(settings.general.shell).toBe("dash -c")
  })
})

describe("SUPERVISOR_<GROUP>_<KEY> environment overrides", () => {
  it("win over every file: duration, integer, boolean and string", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[settings.supervisor]",
        'stop_timeout = "2s"',
        "cpu_violation_threshold = 4",
        "[settings.general]",
        "tool_manager = true",
      ),
      "app/supervisor.toml": toml(
        "[settings.supervisor]",
        'stop_timeout = "3s"',
        "[settings.web]",
        "auto_start = false",
      ),
    })
    const { settings } = await loadOk(sb, {
      cwd: "app",
      env: {
        SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "750ms",
        SUPERVISOR_SUPERVISOR_CPU_VIOLATION_THRESHOLD: "7",
        SUPERVISOR_WEB_AUTO_START: "true",
        SUPERVISOR_GENERAL_TOOL_MANAGER: "FALSE",
        SUPERVISOR_GENERAL_TOOL_MANAGER_BIN: "/opt/mise/bin/mise",
        SUPERVISOR_WEB_BIND_PORT: "0",
        SUPERVISOR_API_BIND_ADDRESS: "127.0.0.5",
      },
    })
    expect(ms(settings.supervisor.stop_timeout)).toBe(750)
    expect(settings.supervisor.cpu_violation_threshold).toBe(7)
    expect(settings.web.auto_start).toBe(true)
    expect(settings.general.tool_manager).toBe(false)
    expect(settings.general.tool_manager_bin).toBe("/opt/mise/bin/mise")
    expect(settings.web.bind_port).toBe(0)
    expect(settings.api.bind_address).toBe("127.0.0.5")
  })

  it("string settings keep numeric-looking values as strings", async () => {
    const sb = sandbox()
    const { settings } = await loadOk(sb, {
      cwd: "w",
      env: { SUPERVISOR_API_TOKEN: "12345", SUPERVISOR_SUPERVISOR_USER: "1000" },
    })
    expect(settings.api.token).toBe("12345")
    expect(settings.supervisor.user).toBe("1000")
  })

  it("ignores empty values and unrelated variables", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[settings.supervisor]", 'stop_timeout = "3s"') })
    const { settings } = await loadOk(sb, {
      cwd: "app",
      env: { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "", SUPERVISOR_NOPE_THING: "x", SUPERVISOR_WEB_NOPE: "y" },
    })
    expect(ms(settings.supervisor.stop_timeout)).toBe(3000)
  })

  it("apply without any config file", async () => {
    const sb = sandbox()
    const { settings } = await loadOk(sb, {
      cwd: "w",
      env: { SUPERVISOR_GENERAL_INTERVAL: "1m", SUPERVISOR_SUPERVISOR_AUTO_START: "false" },
    })
    expect(ms(settings.general.interval)).toBe(60_000)
    expect(settings.supervisor.auto_start).toBe(false)
  })

  it("supervisor.container from the user config, SUPERVISOR_SUPERVISOR_CONTAINER or pitchfork's SUPERVISOR_CONTAINER", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[settings.supervisor]", "container = true") })
    expect((await loadOk(sb, { cwd: "w" })).settings.supervisor.container).toBe(true)
    const bare = sandbox()
    for (const name of ["SUPERVISOR_SUPERVISOR_CONTAINER", "SUPERVISOR_CONTAINER"])
      expect((await loadOk(bare, { cwd: "w", env: { [name]: "true" } })).settings.supervisor.container).toBe(
        true,
      )
    sb.write({ "home/.config/supervisor/config.toml": toml("[settings.supervisor]", 'container = "yes"') })
    expect(JSON.stringify((await loadErr(sb, { cwd: "w" })).problems)).toContain("container")
  })
})

describe("web.base_path from the environment", () => {
  it("the loader reads SUPERVISOR_WEB_BASE_PATH (its Schema-derived variable); SUPERVISOR_WEB_PATH (--web-path) wins in the listener", async () => {
    const sb = sandbox()
    const { settings } = await loadOk(sb, { cwd: "w", env: { SUPERVISOR_WEB_BASE_PATH: "/bp" } })
    expect(settings.web.base_path).toBe("/bp")
    const plan = (env: Record<string, string>) =>
      Effect.runSync(listenerPlans(settings, { SUPERVISOR_WEB_PORT: "4312", ...env }))[0]?.basePath
    expect(plan({})).toBe("/bp")
    expect(plan({ SUPERVISOR_WEB_PATH: "/flag" })).toBe("/flag")
  })
})
