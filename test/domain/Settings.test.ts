import { Duration, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { effectiveProxy } from "../../src/domain/proxyUrl.js"
import {
  ApiSettings,
  GeneralSettings,
  Settings,
  SupervisorSettings,
  settingEnvVar,
  settingGroups,
  WebSettings,
} from "../../src/domain/Settings.js"
import { decoder, messages, paths } from "./helpers.js"

const { ok, fail } = decoder(Settings)
const ms = (d: Duration.Duration) => Duration.toMillis(d)

describe("Settings defaults", () => {
  const s = ok({})

  it("general: interval 10s, tool_manager off, mise, sh -c", () => {
    expect(ms(s.general.interval)).toBe(10_000)
    expect(s.general.tool_manager).toBe(false)
    expect(s.general.tool_manager_bin).toBe("mise")
    expect(s.general.shell).toBe("sh -c")
  })

  it("supervisor: stop_timeout 5s, watch_poll_interval 500ms, watch_interval 10s, file_watch_debounce 1s", () => {
    expect(ms(s.supervisor.stop_timeout)).toBe(5_000)
    expect(ms(s.supervisor.watch_poll_interval)).toBe(500)
    expect(ms(s.supervisor.watch_interval)).toBe(10_000)
    expect(ms(s.supervisor.file_watch_debounce)).toBe(1_000)
  })

  it("supervisor: cpu_violation_threshold 3, ready_check_interval 500ms, auto_start, no user, not in container mode", () => {
    expect(s.supervisor.container).toBe(false)
    expect(s.supervisor.cpu_violation_threshold).toBe(3)
    expect(ms(s.supervisor.ready_check_interval)).toBe(500)
    expect(ms(s.supervisor.hook_timeout)).toBe(30_000)
    expect(s.supervisor.auto_start).toBe(true)
    expect(s.supervisor.user).toBeUndefined()
  })

  it("web: off, on 127.0.0.1:3120 (10 ports tried), loopback only, at the root path", () => {
    expect(s.web).toEqual({
      auto_start: false,
      bind_address: "127.0.0.1",
      bind_port: 3120,
      port_attempts: 10,
      allow_non_loopback: false,
      log_lines: 100,
      base_path: "",
    })
  })

  it("api: off, on 127.0.0.1:3121 (10 ports tried), plain HTTP, no token", () => {
    expect(s.api).toEqual({
      auto_start: false,
      bind_address: "127.0.0.1",
      bind_port: 3121,
      port_attempts: 10,
      allow_non_loopback: false,
      tls: false,
    })
    expect(s.api.token).toBeUndefined()
  })

  it("each group decodes {} to the same defaults", () => {
    expect(Schema.decodeUnknownSync(GeneralSettings)({})).toEqual(s.general)
    expect(Schema.decodeUnknownSync(SupervisorSettings)({})).toEqual(s.supervisor)
    expect(Schema.decodeUnknownSync(WebSettings)({})).toEqual(s.web)
    expect(Schema.decodeUnknownSync(ApiSettings)({})).toEqual(s.api)
  })

  it("encodes the defaults back to TOML values", () => {
    expect(Schema.encodeSync(Settings)(s)).toEqual({
      general: {
        interval: "10s",
        tool_manager: false,
        tool_manager_bin: "mise",
        shell: "sh -c",
        autostop_delay: "1m",
        secret_patterns: "*TOKEN*,*SECRET*,*PASSWORD*,*_KEY",
        log_level: "info",
        startup_log_timestamps: false,
      },
      supervisor: {
        stop_timeout: "5s",
        watch_poll_interval: "500ms",
        watch_interval: "10s",
        file_watch_debounce: "1s",
        cpu_violation_threshold: 3,
        ready_check_interval: "500ms",
        hook_timeout: "30s",
        auto_start: true,
        restart_delay: "0s",
        http_client_timeout: "5s",
        port_bump_attempts: 10,
        orphan_policy: "adopt",
        events_retained: 2000,
        container: false,
      },
      web: {
        auto_start: false,
        bind_address: "127.0.0.1",
        bind_port: 3120,
        port_attempts: 10,
        allow_non_loopback: false,
        log_lines: 100,
        base_path: "",
      },
      api: {
        auto_start: false,
        bind_address: "127.0.0.1",
        bind_port: 3121,
        port_attempts: 10,
        allow_non_loopback: false,
        tls: false,
      },
      logs: { log_format: "text", timestamp: true, timestamp_format: "%Y-%m-%d %H:%M:%S" },
      metrics: { public: false },
      tui: { refresh_rate: "5s" },
      proxy: {
        enable: false,
        host: "127.0.0.1",
        https: true,
        tld: "localhost",
        auto_start: true,
        auto_start_timeout: "30s",
      },
    })
  })
})

describe("Settings values", () => {
  it("overrides a key and keeps the other defaults", () => {
    const s = ok({ supervisor: { stop_timeout: "30s" }, general: { interval: "1m" } })
    expect(ms(s.supervisor.stop_timeout)).toBe(30_000)
    expect(ms(s.supervisor.watch_interval)).toBe(10_000)
    expect(ms(s.general.interval)).toBe(60_000)
    expect(s.web.bind_port).toBe(3120)
  })

  it("accepts a user name or a numeric UID, kept as a string", () => {
    expect(ok({ supervisor: { user: "deploy" } }).supervisor.user).toBe("deploy")
    expect(ok({ supervisor: { user: 1000 } }).supervisor.user).toBe("1000")
  })

  it("accepts bind_port 0 (pick a free one) and a token", () => {
    const s = ok({ web: { bind_port: 0 }, api: { bind_port: 0, token: "secret" } })
    expect(s.web.bind_port).toBe(0)
    expect(s.api.bind_port).toBe(0)
    expect(s.api.token).toBe("secret")
  })

  it("rejects bad values, at their key", () => {
    expect(paths(fail({ supervisor: { stop_timeout: "5" } }))).toContain("supervisor.stop_timeout")
    expect(messages(fail({ supervisor: { stop_timeout: "5" } }))).toContain("has no unit")
    expect(paths(fail({ supervisor: { cpu_violation_threshold: 0 } }))).toContain(
      "supervisor.cpu_violation_threshold",
    )
    expect(paths(fail({ web: { bind_port: 65536 } }))).toContain("web.bind_port")
    expect(paths(fail({ api: { bind_port: -1 } }))).toContain("api.bind_port")
    expect(paths(fail({ general: { shell: "" } }))).toContain("general.shell")
    expect(paths(fail({ general: { tool_manager: "yes" } }))).toContain("general.tool_manager")
  })

  it("explains the rule broken by a bad number or shell", () => {
    expect(messages(fail({ supervisor: { cpu_violation_threshold: 0 } }))).toContain(
      "expected a whole number, 1 or more",
    )
    expect(messages(fail({ web: { bind_port: 70000 } }))).toContain(
      "expected a port number between 0 and 65535 (0 picks a free one)",
    )
    expect(messages(fail({ general: { shell: " sh -c" } }))).toContain(
      'expected a non-empty command without surrounding spaces, e.g. "sh -c"',
    )
  })

  it("rejects unknown keys and groups", () => {
    expect(paths(fail({ supervisor: { stop_timout: "5s" } }))).toContain("supervisor.stop_timout")
    expect(paths(fail({ daemon: {} }))).toContain("daemon")
  })
})

describe("settingEnvVar", () => {
  it("is SUPERVISOR_<GROUP>_<KEY> in upper case", () => {
    expect(settingEnvVar("supervisor", "stop_timeout")).toBe("SUPERVISOR_SUPERVISOR_STOP_TIMEOUT")
    expect(settingEnvVar("general", "interval")).toBe("SUPERVISOR_GENERAL_INTERVAL")
    expect(settingEnvVar("web", "bind_port")).toBe("SUPERVISOR_WEB_BIND_PORT")
    expect(settingEnvVar("api", "token")).toBe("SUPERVISOR_API_TOKEN")
  })

  it("gives a distinct variable for every setting", () => {
    const names = Object.entries(settingGroups).flatMap(([group, schema]) =>
      Object.keys(schema.fields).map((key) => settingEnvVar(group, key)),
    )
    expect(names).toContain("SUPERVISOR_SUPERVISOR_CPU_VIOLATION_THRESHOLD")
    expect(names).toContain("SUPERVISOR_WEB_ALLOW_NON_LOOPBACK")
    expect(new Set(names).size).toBe(names.length)
  })
})

describe("Settings: logs", () => {
  it("log_format defaults to text; retention and the archive hook are off unless set", () => {
    const s = ok({})
    expect(s.logs.log_format).toBe("text")
    expect(s.logs.time_retention).toBeUndefined()
    expect(s.logs.line_retention).toBeUndefined()
    expect(s.logs.archive_hook).toBeUndefined()
  })

  it("reads them; the archive hook's batch_size defaults to 1000", () => {
    const s = ok({
      logs: {
        log_format: "json",
        time_retention: "7d",
        line_retention: 10000,
        archive_hook: { command: "cat" },
      },
    })
    expect(s.logs.log_format).toBe("json")
    expect(ms(s.logs.time_retention!)).toBe(7 * 86_400_000)
    expect(s.logs.line_retention).toBe(10000)
    expect(s.logs.archive_hook).toEqual({ command: "cat", batch_size: 1000 })
  })

  it("rejects bad values, at their key", () => {
    expect(paths(fail({ logs: { log_format: "xml" } }))).toContain("logs.log_format")
    expect(paths(fail({ logs: { line_retention: 0 } }))).toContain("logs.line_retention")
    expect(paths(fail({ logs: { time_retention: "7" } }))).toContain("logs.time_retention")
    expect(paths(fail({ logs: { archive_hook: { command: "x", batch_size: 0 } } }))).toContain(
      "logs.archive_hook.batch_size",
    )
  })
})

describe("settingGroups", () => {
  it("has the eight groups of Settings", () => {
    expect(Object.keys(settingGroups).sort()).toEqual([
      "api",
      "general",
      "logs",
      "metrics",
      "proxy",
      "supervisor",
      "tui",
      "web",
    ])
  })
})

describe("Settings: proxy", () => {
  it("is off by default; https on port 7443, or 7080 without https, unless a port is set", () => {
    const s = ok({})
    expect(s.proxy.enable).toBe(false)
    expect(s.proxy.port).toBeUndefined()
    expect(effectiveProxy(s)).toMatchObject({
      enable: false,
      host: "127.0.0.1",
      port: 7443,
      https: true,
      tld: "localhost",
    })
    expect(ms(effectiveProxy(s).auto_start_timeout)).toBe(30_000)
    expect(effectiveProxy(ok({ proxy: { https: false } })).port).toBe(7080)
    expect(effectiveProxy(ok({ proxy: { https: false, port: 8080 } })).port).toBe(8080)
  })

  it("rejects bad values, at their key", () => {
    expect(paths(fail({ proxy: { port: 70000 } }))).toContain("proxy.port")
    expect(paths(fail({ proxy: { tld: "a b" } }))).toContain("proxy.tld")
    expect(paths(fail({ proxy: { auto_start_timeout: "30" } }))).toContain("proxy.auto_start_timeout")
  })
})

describe("Settings: pitchfork's remaining settings", () => {
  it("defaults: log levels info (file: as log_level), no start timestamps, restart at once, 5s http attempts, 10 bumps, adopt, 100 web lines, timestamps on, tui 5s", () => {
    const s = ok({})
    expect(s.general.log_level).toBe("info")
    expect(s.general.log_file_level).toBeUndefined()
    expect(s.general.startup_log_timestamps).toBe(false)
    expect(ms(s.supervisor.restart_delay)).toBe(0)
    expect(ms(s.supervisor.http_client_timeout)).toBe(5000)
    expect(s.supervisor.port_bump_attempts).toBe(10)
    expect(s.supervisor.orphan_policy).toBe("adopt")
    expect(s.web.log_lines).toBe(100)
    expect(s.logs.timestamp).toBe(true)
    expect(s.logs.timestamp_format).toBe("%Y-%m-%d %H:%M:%S")
    expect(ms(s.tui.refresh_rate)).toBe(5000)
  })

  it("reads set values", () => {
    const s = ok({
      general: { log_level: "debug", log_file_level: "warn", startup_log_timestamps: true },
      supervisor: {
        restart_delay: "250ms",
        http_client_timeout: "2s",
        port_bump_attempts: 3,
        orphan_policy: "kill",
      },
      web: { log_lines: 500 },
      logs: { timestamp: false, timestamp_format: "%H:%M:%S" },
      tui: { refresh_rate: "2s" },
    })
    expect([s.general.log_level, s.general.log_file_level, s.general.startup_log_timestamps]).toEqual([
      "debug",
      "warn",
      true,
    ])
    expect(ms(s.supervisor.restart_delay)).toBe(250)
    expect(ms(s.supervisor.http_client_timeout)).toBe(2000)
    expect(s.supervisor.port_bump_attempts).toBe(3)
    expect(s.supervisor.orphan_policy).toBe("kill")
    expect(s.web.log_lines).toBe(500)
    expect([s.logs.timestamp, s.logs.timestamp_format]).toEqual([false, "%H:%M:%S"])
    expect(ms(s.tui.refresh_rate)).toBe(2000)
  })

  it("rejects bad values at their key, saying what is expected", () => {
    const bad = (input: unknown, path: string, message: RegExp) => {
      const issues = fail(input)
      expect(paths(issues)).toContain(path)
      expect(messages(issues)).toMatch(message)
    }
    bad({ general: { log_level: "verbose" } }, "general.log_level", /off, error, warn, info, debug, trace/)
    bad({ general: { log_file_level: "loud" } }, "general.log_file_level", /off, error, warn/)
    bad({ supervisor: { orphan_policy: "ignore" } }, "supervisor.orphan_policy", /"adopt" or "kill"/)
    bad({ supervisor: { port_bump_attempts: 0 } }, "supervisor.port_bump_attempts", /from 1 to 1000/)
    bad({ web: { log_lines: 0 } }, "web.log_lines", /from 1 to 100000/)
    bad(
      { logs: { timestamp_format: "%H:%M:%Q" } },
      "logs.timestamp_format",
      /"%Q" is not a supported specifier/,
    )
    bad({ tui: { refresh_rate: "90s" } }, "tui.refresh_rate", /from 100ms to 60s/)
  })
})
