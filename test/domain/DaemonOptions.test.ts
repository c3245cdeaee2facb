import { Duration, Schema } from "effect"
import { parse as parseToml, stringify as stringifyToml } from "smol-toml"
import { describe, expect, it } from "vitest"
import { DaemonOptions, DEPRECATED_PORT_KEYS, RETRIGGERS } from "../../src/domain/DaemonOptions.js"
import { decoder, messages, paths } from "./helpers.js"

const { ok, fail } = decoder(DaemonOptions)
const encode = Schema.encodeSync(DaemonOptions)
const ms = (d: Duration.Duration | undefined) => (d === undefined ? undefined : Duration.toMillis(d))

/** Decodes `{ [key]: value }` and returns the decoded value of that key. */
const one = <K extends keyof DaemonOptions>(key: K, value: unknown): DaemonOptions[K] =>
  ok({ [key]: value })[key]
/** The issues of `{ [key]: value }`, asserting that they point at the key. */
const bad = (key: string, value: unknown) => {
  const issues = fail({ [key]: value })
  expect(
    paths(issues).every((p) => p === key || p.startsWith(`${key}.`)),
    paths(issues).join(", "),
  ).toBe(true)
  return issues
}

describe("DaemonOptions: run", () => {
  it("accepts a command", () => {
    expect(one("run", "exec node server.js")).toBe("exec node server.js")
  })

  it("is optional in one file (a .local file may override a few keys)", () => {
    expect(ok({})).toEqual({})
    expect(ok({ retry: 1 })).toEqual({ retry: 1 })
  })

  it("rejects an empty or blank command and a non-string", () => {
    expect(messages(bad("run", ""))).toContain("must not be empty")
    expect(messages(bad("run", "   "))).toContain("must not be empty")
    expect(messages(bad("run", ["node", "server.js"]))).toContain("Expected string")
  })
})

describe("DaemonOptions: dir", () => {
  it("accepts relative, absolute and ~ paths unchanged", () => {
    for (const dir of ["services/api", "/srv/app", "~", "~/code/app", "$HOME/x"])
      expect(one("dir", dir)).toBe(dir)
  })

  it("rejects a non-string", () => {
    bad("dir", 1)
  })
})

describe("DaemonOptions: env", () => {
  it("keeps string values", () => {
    expect(one("env", { NODE_ENV: "development", EMPTY: "" })).toEqual({ NODE_ENV: "development", EMPTY: "" })
  })

  it("turns numbers and booleans into strings", () => {
    expect(one("env", { PORT: 3000, RATIO: 1.5, DEBUG: true, QUIET: false })).toEqual({
      PORT: "3000",
      RATIO: "1.5",
      DEBUG: "true",
      QUIET: "false",
    })
  })

  it("encodes to string values", () => {
    expect(encode({ env: { PORT: "3000" } })).toEqual({ env: { PORT: "3000" } })
  })

  it("rejects nested tables, arrays and non-tables", () => {
    expect(paths(bad("env", { A: { B: "c" } }))).toContain("env.A")
    expect(paths(bad("env", { A: ["x"] }))).toContain("env.A")
    bad("env", "A=1")
  })
})

describe("DaemonOptions: user", () => {
  it("accepts a user name", () => {
    expect(one("user", "www-data")).toBe("www-data")
  })

  it("accepts a numeric UID, kept as a string", () => {
    expect(one("user", 1000)).toBe("1000")
    expect(one("user", 0)).toBe("0")
    expect(encode({ user: "1000" })).toEqual({ user: "1000" })
  })

  it("rejects a negative or fractional UID and other types", () => {
    bad("user", -1)
    bad("user", 1.5)
    bad("user", true)
  })
})

describe("DaemonOptions: retry", () => {
  it.each([0, 1, 3, 100])("accepts the count %d", (n) => {
    expect(one("retry", n)).toBe(n)
  })

  it("accepts true (forever) and false (none)", () => {
    expect(one("retry", true)).toBe(true)
    expect(one("retry", false)).toBe(false)
  })

  it.each([-1, 1.5, "3", "forever"])("rejects %j", (value) => {
    expect(bad("retry", value).length).toBeGreaterThan(0)
  })
})

describe("DaemonOptions: auto", () => {
  it("accepts start and stop", () => {
    expect(one("auto", ["start"])).toEqual(["start"])
    expect(one("auto", ["start", "stop"])).toEqual(["start", "stop"])
    expect(one("auto", [])).toEqual([])
  })

  it("rejects other values, naming the element", () => {
    const issues = bad("auto", ["start", "restart"])
    expect(paths(issues)).toContain("auto.1")
    expect(messages(issues)).toContain('Expected "start", actual "restart"')
  })

  it("rejects a bare string", () => {
    bad("auto", "start")
  })
})

describe("DaemonOptions: ready_delay", () => {
  it("accepts a number of seconds, zero and fractions included", () => {
    expect(one("ready_delay", 3)).toBe(3)
    expect(one("ready_delay", 0)).toBe(0)
    expect(one("ready_delay", 0.5)).toBe(0.5)
  })

  it("accepts a duration string as every other duration does, in seconds", () => {
    expect(one("ready_delay", "500ms")).toBe(0.5)
    expect(one("ready_delay", "2s")).toBe(2)
    expect(one("ready_delay", "1m 30s")).toBe(90)
    expect(one("ready_delay", "0s")).toBe(0)
  })

  it("rejects negative numbers and strings that are not durations, with a readable message", () => {
    // (the loader drops the "Expected undefined" of every optional key, see config/issues.ts)
    for (const value of [-1, "soon", "3", "", true])
      expect(
        bad("ready_delay", value)
          .map((i) => i.message)
          .filter((m) => !m.startsWith("Expected undefined")),
      ).toEqual(['expected a duration such as "2s" or "500ms", or a number of seconds (0 or more)'])
  })
})

describe("DaemonOptions: ready_output", () => {
  it("turns a regex string into { pattern }", () => {
    expect(one("ready_output", "listening on \\d+")).toEqual({ pattern: "listening on \\d+" })
  })

  it("accepts { pattern, timeout }", () => {
    const r = one("ready_output", { pattern: "ready", timeout: "45s" })
    expect(r?.pattern).toBe("ready")
    expect(ms(r?.timeout)).toBe(45_000)
  })

  it("accepts a template", () => {
    expect(one("ready_output", "on port {{ daemons.api.port }}")).toEqual({
      pattern: "on port {{ daemons.api.port }}",
    })
  })

  it("rejects an invalid regex", () => {
    expect(messages(bad("ready_output", "(unclosed"))).toContain('invalid regular expression "(unclosed"')
  })

  it("rejects an unknown key in the object form", () => {
    expect(paths(bad("ready_output", { pattern: "x", regex: "y" }))).toContain("ready_output.regex")
  })
})

describe("DaemonOptions: ready_http", () => {
  it("turns a URL into { url, status: [] }", () => {
    expect(one("ready_http", "http://localhost:3000/health")).toEqual({
      url: "http://localhost:3000/health",
      status: [],
    })
  })

  it("accepts { url, status, timeout }", () => {
    const r = one("ready_http", {
      url: "http://localhost:{{ daemons.api.port }}",
      status: [401],
      timeout: "5s",
    })
    expect(r?.url).toBe("http://localhost:{{ daemons.api.port }}")
    expect(r?.status).toEqual([401])
    expect(ms(r?.timeout)).toBe(5_000)
  })

  it("rejects a bad status and a number", () => {
    expect(paths(bad("ready_http", { url: "http://x", status: [1000] }))).toContain("ready_http.status.0")
    bad("ready_http", 3000)
  })
})

describe("DaemonOptions: ready_port", () => {
  it("turns a port into { port }", () => {
    expect(one("ready_port", 5432)).toEqual({ port: 5432 })
  })

  it("turns a template into { port }", () => {
    expect(one("ready_port", "{{ daemons.db.port }}")).toEqual({ port: "{{ daemons.db.port }}" })
  })

  it("accepts { port, timeout }", () => {
    const r = one("ready_port", { port: 5432, timeout: "20s" })
    expect(r?.port).toBe(5432)
    expect(ms(r?.timeout)).toBe(20_000)
  })

  it("rejects out-of-range ports", () => {
    expect(messages(bad("ready_port", 0))).toContain("between 1 and 65535")
    expect(messages(bad("ready_port", 65536))).toContain("between 1 and 65535")
    expect(paths(bad("ready_port", { port: -5 }))).toContain("ready_port.port")
  })

  it("rejects an unknown template variable", () => {
    expect(messages(bad("ready_port", "{{ db.port }}"))).toContain('unknown template variable "db.port"')
  })

  it("rejects a string that is not a template: it can never render to a port", () => {
    expect(messages(bad("ready_port", "localhost"))).toContain(
      'expected a port number (without quotes) or a template such as "{{ daemons.db.port }}", got "localhost"',
    )
    expect(messages(bad("ready_port", "5432"))).toContain("without quotes")
    expect(paths(bad("ready_port", { port: "db" }))).toContain("ready_port.port")
  })
})

describe("DaemonOptions: ready_cmd", () => {
  it("turns a command into { run }", () => {
    expect(one("ready_cmd", "pg_isready")).toEqual({ run: "pg_isready" })
  })

  it("accepts { run, timeout }", () => {
    const r = one("ready_cmd", { run: "pg_isready -p {{ daemons.db.port }}", timeout: "1m 30s" })
    expect(r?.run).toBe("pg_isready -p {{ daemons.db.port }}")
    expect(ms(r?.timeout)).toBe(90_000)
  })

  it("rejects a number and an unknown variable", () => {
    bad("ready_cmd", 1)
    expect(messages(bad("ready_cmd", "{{ x }}"))).toContain('unknown template variable "x"')
  })
})

describe("DaemonOptions: depends", () => {
  it("accepts short and qualified IDs", () => {
    expect(one("depends", ["db", "infra/cache"])).toEqual(["db", "infra/cache"])
  })

  it("rejects invalid IDs, each at its index", () => {
    const issues = bad("depends", ["a/b/c", "ok", "my--app"])
    expect(paths(issues)).toEqual(expect.arrayContaining(["depends.0", "depends.2"]))
    expect(paths(issues)).not.toContain("depends.1")
    expect(messages(issues)).toContain('"a/b/c" has more than one slash')
    expect(messages(issues)).toContain('invalid daemon name "my--app"')
  })

  it("rejects a bare string", () => {
    bad("depends", "db")
  })
})

describe("DaemonOptions: watch and watch_mode", () => {
  it("accepts glob patterns", () => {
    expect(one("watch", ["*.js", "src/**/*.ts", "package.json"])).toEqual([
      "*.js",
      "src/**/*.ts",
      "package.json",
    ])
  })

  it("rejects non-string patterns", () => {
    expect(paths(bad("watch", ["ok", 1]))).toContain("watch.1")
  })

  it.each(["native", "poll", "auto"] as const)("accepts watch_mode %s", (mode) => {
    expect(one("watch_mode", mode)).toBe(mode)
  })

  it("rejects another watch_mode", () => {
    expect(messages(bad("watch_mode", "inotify"))).toContain('Expected "native", actual "inotify"')
    bad("watch_mode", "NATIVE")
  })
})

describe("DaemonOptions: port", () => {
  it("normalises a single port", () => {
    expect(one("port", 3000)).toEqual({ expect: [3000], bump: false })
  })

  it("normalises an array of ports", () => {
    expect(one("port", [3000, 3001])).toEqual({ expect: [3000, 3001], bump: false })
  })

  it("accepts { expect } with bump defaulting to false", () => {
    expect(one("port", { expect: [8080] })).toEqual({ expect: [8080], bump: false })
  })

  it.each([true, false, 0, 5])("accepts bump = %j", (bump) => {
    expect(one("port", { expect: [3000], bump })).toEqual({ expect: [3000], bump })
  })

  it("rejects out-of-range ports in every form", () => {
    expect(messages(bad("port", 0))).toContain("between 1 and 65535")
    expect(messages(bad("port", 70000))).toContain("between 1 and 65535")
    expect(paths(bad("port", [3000, 70000]))).toContain("port.1")
    expect(paths(bad("port", { expect: [70000] }))).toContain("port.expect.0")
  })

  it("rejects a negative or fractional bump and bad shapes", () => {
    expect(paths(bad("port", { expect: [3000], bump: -1 }))).toContain("port.bump")
    expect(paths(bad("port", { expect: [3000], bump: 1.5 }))).toContain("port.bump")
    bad("port", "3000")
    bad("port", { expect: 3000 })
    expect(paths(bad("port", { expect: [3000], bumps: true }))).toContain("port.bumps")
  })

  it("encodes to the object form, which decodes to the same value", () => {
    const decoded = one("port", [3000, 3001])
    const encoded = encode({ port: decoded! })
    expect(encoded).toEqual({ port: { expect: [3000, 3001], bump: false } })
    expect(ok(encoded).port).toEqual(decoded)
  })
})

describe("DaemonOptions: deprecated port keys", () => {
  it("names the three deprecated keys", () => {
    expect([...DEPRECATED_PORT_KEYS]).toEqual(["expected_port", "auto_bump_port", "port_bump_attempts"])
  })

  it("accepts them unchanged", () => {
    expect(ok({ expected_port: [3000, 3001], auto_bump_port: true, port_bump_attempts: 10 })).toEqual({
      expected_port: [3000, 3001],
      auto_bump_port: true,
      port_bump_attempts: 10,
    })
  })

  it("validates them", () => {
    expect(paths(bad("expected_port", [0]))).toContain("expected_port.0")
    bad("expected_port", 3000)
    bad("auto_bump_port", "yes")
    expect(messages(bad("port_bump_attempts", -1))).toContain("expected a whole number, 0 or more")
    expect(messages(bad("port_bump_attempts", 1.5))).toContain("expected a whole number, 0 or more")
  })
})

describe("DaemonOptions: boot_start and tool_manager", () => {
  it("accept booleans", () => {
    expect(ok({ boot_start: true, tool_manager: false })).toEqual({ boot_start: true, tool_manager: false })
  })

  it("reject other types", () => {
    bad("boot_start", "true")
    bad("tool_manager", 1)
  })
})

describe("DaemonOptions: hooks", () => {
  const HOOKS = ["on_ready", "on_fail", "on_retry", "on_stop", "on_exit"] as const

  it.each(HOOKS)("accepts %s as a command string", (hook) => {
    expect(one("hooks", { [hook]: "notify-send done" })).toEqual({ [hook]: "notify-send done" })
  })

  it.each(HOOKS)("rejects an empty %s command", (hook) => {
    expect(paths(bad("hooks", { [hook]: "" }))).toContain(`hooks.${hook}`)
  })

  it("accepts all hooks together", () => {
    const all = Object.fromEntries(HOOKS.map((h) => [h, `echo ${h}`]))
    expect(one("hooks", { ...all, on_output: "echo out" })).toEqual({
      ...all,
      on_output: { run: "echo out" },
    })
  })

  it("turns an on_output string into { run }", () => {
    expect(one("hooks", { on_output: "echo $SUPERVISOR_MATCHED_LINE" })?.on_output).toEqual({
      run: "echo $SUPERVISOR_MATCHED_LINE",
    })
  })

  it("accepts on_output with a filter or a regex, and a debounce", () => {
    expect(one("hooks", { on_output: { run: "x", filter: "ERROR" } })?.on_output).toEqual({
      run: "x",
      filter: "ERROR",
    })
    const r = one("hooks", { on_output: { run: "x", regex: "^ERR\\b", debounce: "5s" } })?.on_output
    expect(r?.regex).toBe("^ERR\\b")
    expect(ms(r?.debounce)).toBe(5_000)
  })

  it("rejects filter and regex together", () => {
    expect(messages(bad("hooks", { on_output: { run: "x", filter: "a", regex: "b" } }))).toContain(
      "set either filter or regex, not both",
    )
  })

  it("rejects an invalid on_output regex", () => {
    const issues = bad("hooks", { on_output: { run: "x", regex: "(" } })
    expect(paths(issues)).toContain("hooks.on_output.regex")
    expect(messages(issues)).toContain('invalid regular expression "("')
  })

  it("rejects a bad debounce, a missing run and an unknown on_output key", () => {
    expect(messages(bad("hooks", { on_output: { run: "x", debounce: "1" } }))).toContain("has no unit")
    expect(paths(bad("hooks", { on_output: { filter: "a" } }))).toContain("hooks.on_output.run")
    expect(paths(bad("hooks", { on_output: { run: "x", pattern: "a" } }))).toContain(
      "hooks.on_output.pattern",
    )
  })

  it("rejects an unknown hook", () => {
    const issues = bad("hooks", { on_start: "x" })
    expect(paths(issues)).toContain("hooks.on_start")
    expect(messages(issues)).toContain(
      '"on_ready" | "on_fail" | "on_retry" | "on_stop" | "on_exit" | "on_unhealthy" | "on_output"',
    )
  })

  it("encodes on_output with its debounce as a string", () => {
    expect(encode({ hooks: { on_output: { run: "x", regex: "E", debounce: Duration.seconds(2) } } })).toEqual(
      {
        hooks: { on_output: { run: "x", regex: "E", debounce: "2s" } },
      },
    )
  })
})

describe("DaemonOptions: cron", () => {
  it("normalises a schedule string", () => {
    expect(one("cron", "0 */5 * * * *")).toEqual({
      schedule: "0 */5 * * * *",
      retrigger: "finish",
      immediate: false,
    })
  })

  it("fills the object form's defaults", () => {
    expect(one("cron", { schedule: "0 0 3 * * *" })).toEqual({
      schedule: "0 0 3 * * *",
      retrigger: "finish",
      immediate: false,
    })
  })

  it.each(RETRIGGERS)("accepts retrigger = %s", (retrigger) => {
    expect(one("cron", { schedule: "0 0 3 * * *", retrigger, immediate: true })).toEqual({
      schedule: "0 0 3 * * *",
      retrigger,
      immediate: true,
    })
  })

  it("lists the four retrigger values of the spec", () => {
    expect([...RETRIGGERS]).toEqual(["finish", "always", "success", "fail"])
  })

  it("rejects an unknown retrigger", () => {
    const issues = bad("cron", { schedule: "0 0 3 * * *", retrigger: "never" })
    expect(paths(issues)).toContain("cron.retrigger")
    expect(messages(issues)).toContain('Expected "finish", actual "never"')
  })

  it("rejects a 5-field or malformed schedule in both forms", () => {
    expect(messages(bad("cron", "*/5 * * * *"))).toContain("has 5 fields")
    expect(paths(bad("cron", { schedule: "0 0 25 * * *" }))).toContain("cron.schedule")
    bad("cron", { schedule: "0 0 3 * * *", immediate: "yes" })
    bad("cron", { retrigger: "always" })
  })

  it("encodes to the object form", () => {
    expect(encode({ cron: { schedule: "0 0 3 * * *", retrigger: "finish", immediate: false } })).toEqual({
      cron: { schedule: "0 0 3 * * *", retrigger: "finish", immediate: false },
    })
  })
})

describe("DaemonOptions: memory_limit", () => {
  it.each([
    ["50MB", 50_000_000],
    ["512MB", 512_000_000],
    ["1GiB", 1024 ** 3],
    ["256KiB", 256 * 1024],
    ["512 mb", 512_000_000],
  ])("decodes %s to %d bytes", (text, bytes) => {
    expect(one("memory_limit", text)).toBe(bytes)
  })

  it("rejects a number, zero and a bad unit", () => {
    bad("memory_limit", 512)
    expect(messages(bad("memory_limit", "0MB"))).toContain("must be greater than zero")
    expect(messages(bad("memory_limit", "5 bananas"))).toContain('unknown unit "bananas"')
  })

  it("encodes back to a byte size string", () => {
    expect(encode({ memory_limit: 512_000_000 })).toEqual({ memory_limit: "512MB" })
    expect(encode({ memory_limit: 1024 ** 3 })).toEqual({ memory_limit: "1GiB" })
  })
})

describe("DaemonOptions: cpu_limit", () => {
  it.each([0.5, 50, 100, 150, 800])("accepts %d", (n) => {
    expect(one("cpu_limit", n)).toBe(n)
  })

  it.each([0, -10])("rejects %d with a readable message", (value) => {
    expect(messages(bad("cpu_limit", value))).toContain(
      "expected a positive number: percent of one core (100 = one full core)",
    )
  })

  it("rejects a string", () => {
    expect(messages(bad("cpu_limit", "50%"))).toContain('Expected number, actual "50%"')
  })
})

describe("DaemonOptions: stop_signal", () => {
  it.each([
    ["INT", "SIGINT"],
    ["SIGINT", "SIGINT"],
    ["term", "SIGTERM"],
    ["SIGQUIT", "SIGQUIT"],
    ["hup", "SIGHUP"],
    ["USR1", "SIGUSR1"],
    ["sigusr2", "SIGUSR2"],
  ])("normalises %s to { signal: %s }", (input, signal) => {
    expect(one("stop_signal", input)).toEqual({ signal })
  })

  it("accepts { signal, timeout } with or without SIG", () => {
    const r = one("stop_signal", { signal: "TERM", timeout: "10s" })
    expect(r?.signal).toBe("SIGTERM")
    expect(ms(r?.timeout)).toBe(10_000)
    expect(one("stop_signal", { signal: "SIGINT", timeout: "500ms" })?.signal).toBe("SIGINT")
    expect(one("stop_signal", { signal: "quit" })).toEqual({ signal: "SIGQUIT" })
  })

  it("rejects an unknown signal in both forms", () => {
    expect(messages(bad("stop_signal", "KILL"))).toContain('unknown stop signal "KILL"')
    expect(paths(bad("stop_signal", { signal: "SIGKILL" }))).toContain("stop_signal.signal")
  })

  it("rejects a timeout without a unit", () => {
    const issues = bad("stop_signal", { signal: "TERM", timeout: "10" })
    expect(paths(issues)).toContain("stop_signal.timeout")
    expect(messages(issues)).toContain("has no unit")
  })

  it("rejects a missing signal and a number", () => {
    bad("stop_signal", { timeout: "10s" })
    bad("stop_signal", 15)
  })

  it("encodes to the object form with the SIG prefix", () => {
    expect(encode({ stop_signal: { signal: "SIGINT" } })).toEqual({ stop_signal: { signal: "SIGINT" } })
    expect(encode({ stop_signal: { signal: "SIGTERM", timeout: Duration.seconds(10) } })).toEqual({
      stop_signal: { signal: "SIGTERM", timeout: "10s" },
    })
  })
})

describe("DaemonOptions: unknown keys", () => {
  it("rejects a misspelled key, listing the known ones", () => {
    const issues = fail({ run: "x", retries: 3 })
    expect(paths(issues)).toEqual(["retries"])
    expect(messages(issues)).toContain('is unexpected, expected: "run" | "dir"')
  })

  it("reports every problem at once", () => {
    const issues = fail({ run: "", port: 0, stop_signal: "KILL", colour: "red" })
    expect(new Set(paths(issues))).toEqual(new Set(["run", "port", "stop_signal", "colour"]))
  })

  it("rejects a non-table", () => {
    expect(fail("npm start").length).toBeGreaterThan(0)
  })
})

describe("DaemonOptions: every key together", () => {
  const FULL = {
    run: "exec node server.js",
    dir: "services/api",
    env: { NODE_ENV: "development", WORKERS: 2, DEBUG: true },
    user: 1000,
    retry: 3,
    auto: ["start", "stop"],
    ready_delay: 2.5,
    ready_output: { pattern: "listening on {{ daemons.api.port }}", timeout: "30s" },
    ready_http: { url: "http://localhost:{{ daemons.api.port }}/health", status: [401], timeout: "1m" },
    ready_port: { port: "{{ daemons.db.port }}", timeout: "10s" },
    ready_cmd: { run: "pg_isready -p {{ daemons.infra/db.port }}", timeout: "5s" },
    depends: ["db", "infra/cache"],
    watch: ["src/**/*.ts"],
    watch_mode: "auto",
    port: { expect: [3000, 3001], bump: 5 },
    expected_port: [3000],
    auto_bump_port: false,
    port_bump_attempts: 10,
    boot_start: true,
    hooks: {
      on_ready: "echo ready",
      on_fail: "echo fail",
      on_retry: "echo retry",
      on_stop: "echo stop",
      on_exit: "echo exit",
      on_output: { run: "echo hit", filter: "ERROR", debounce: "1s" },
    },
    cron: { schedule: "0 0 3 * * *", retrigger: "success", immediate: true },
    tool_manager: true,
    memory_limit: "512MB",
    cpu_limit: 150,
    stop_signal: { signal: "QUIT", timeout: "15s" },
  }

  it("decodes every key of the spec's table", () => {
    const d = ok(FULL)
    expect(Object.keys(d).sort()).toEqual(Object.keys(FULL).sort())
    expect(d.env).toEqual({ NODE_ENV: "development", WORKERS: "2", DEBUG: "true" })
    expect(d.user).toBe("1000")
    expect(d.ready_http?.status).toEqual([401])
    expect(d.port).toEqual({ expect: [3000, 3001], bump: 5 })
    expect(d.cron).toEqual({ schedule: "0 0 3 * * *", retrigger: "success", immediate: true })
    expect(d.memory_limit).toBe(512_000_000)
    expect(d.stop_signal?.signal).toBe("SIGQUIT")
    expect(ms(d.stop_signal?.timeout)).toBe(15_000)
    expect(ms(d.hooks?.on_output?.debounce)).toBe(1_000)
  })

  it("encodes to the TOML form: strings for durations, sizes, signals and env values", () => {
    const e = encode(ok(FULL))
    expect(e.env).toEqual({ NODE_ENV: "development", WORKERS: "2", DEBUG: "true" })
    expect(e.user).toBe("1000")
    expect(e.memory_limit).toBe("512MB")
    expect(e.stop_signal).toEqual({ signal: "SIGQUIT", timeout: "15s" })
    expect(e.ready_output).toEqual({ pattern: "listening on {{ daemons.api.port }}", timeout: "30s" })
    expect(e.ready_http).toEqual({
      url: "http://localhost:{{ daemons.api.port }}/health",
      status: [401],
      timeout: "1m",
    })
    expect(e.ready_port).toEqual({ port: "{{ daemons.db.port }}", timeout: "10s" })
    expect(e.hooks?.on_output).toEqual({ run: "echo hit", filter: "ERROR", debounce: "1s" })
    expect(e.cron).toEqual({ schedule: "0 0 3 * * *", retrigger: "success", immediate: true })
  })

  it("survives a round trip through TOML text", () => {
    const decoded = ok(FULL)
    const text = stringifyToml({ daemons: { api: encode(decoded) } })
    expect(text).toContain("[daemons.api]")
    const reparsed = parseToml(text) as { daemons: { api: unknown } }
    expect(ok(reparsed.daemons.api)).toEqual(decoded)
  })

  it("round-trips the shorthand forms through their normalised encoding", () => {
    const shorthand = {
      run: "x",
      port: 3000,
      cron: "0 * * * * *",
      stop_signal: "INT",
      ready_output: "ready",
      ready_http: "http://x",
      ready_port: 5432,
      ready_cmd: "true",
      hooks: { on_output: "echo" },
    }
    const decoded = ok(shorthand)
    const encoded = encode(decoded)
    expect(encoded).toEqual({
      run: "x",
      port: { expect: [3000], bump: false },
      cron: { schedule: "0 * * * * *", retrigger: "finish", immediate: false },
      stop_signal: { signal: "SIGINT" },
      ready_output: { pattern: "ready" },
      ready_http: { url: "http://x", status: [] },
      ready_port: { port: 5432 },
      ready_cmd: { run: "true" },
      hooks: { on_output: { run: "echo" } },
    })
    expect(ok(encoded)).toEqual(decoded)
  })
})
