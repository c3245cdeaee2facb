import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

const withHealth = (...lines: ReadonlyArray<string>) =>
  toml("[daemons.web]", 'run = "web"', "port = 3000", "", "[daemons.web.health]", ...lines)

describe("[daemons.<name>.health]", () => {
  it("takes one check with its timing", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": withHealth(
        'http = "http://127.0.0.1:{{ daemons.web.port }}/health"',
        'interval = "5s"',
        'timeout = "2s"',
        "failures = 2",
        'start_period = "30s"',
      ),
    })
    const health = (await loadOk(sb, { cwd: "app" })).daemons["app/web"]!.config.health!
    expect(health.http).toEqual({ url: "http://127.0.0.1:{{ daemons.web.port }}/health", status: [] })
    expect(Duration.toMillis(health.interval!)).toBe(5000)
    expect(Duration.toMillis(health.timeout!)).toBe(2000)
    expect(health.failures).toBe(2)
    expect(Duration.toMillis(health.start_period!)).toBe(30_000)
  })

  it("refuses an interval shorter than its timeout, naming file, line and key", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": withHealth("port = 3000", 'interval = "1s"', 'timeout = "5s"') })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.key).toBe("daemons.web.health")
    expect(p.line).toBe(5)
    expect(p.message).toContain(
      "interval 1s is shorter than timeout 5s: a check must end before the next one; raise interval or lower timeout",
    )
  })

  it("refuses a table with no check, or with two", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": withHealth('interval = "5s"') })
    expect(only(await loadErr(sb, { cwd: "app" }), "InvalidValue").message).toContain(
      'set one check: http = "URL", port = N or cmd = "command"',
    )
    sb.write({ "app/supervisor.toml": withHealth("port = 3000", 'cmd = "true"') })
    expect(only(await loadErr(sb, { cwd: "app" }), "InvalidValue").message).toContain(
      "set one check, not port and cmd: keep one of them",
    )
  })

  it("refuses an unknown key with the closest one", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": withHealth("port = 3000", 'intervall = "5s"') })
    const p = only(await loadErr(sb, { cwd: "app" }), "UnknownKey")
    expect(p.key).toBe("daemons.web.health.intervall")
    expect(p.hint).toBe('did you mean "interval"?')
  })

  it("refuses a template naming a daemon that is not configured", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": withHealth('cmd = "pg_isready -p {{ daemons.db.port }}"') })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidTemplate")
    expect(p.key).toBe("daemons.web.health.cmd")
  })

  it("refuses failures of 0", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": withHealth("port = 3000", "failures = 0") })
    expect(only(await loadErr(sb, { cwd: "app" }), "InvalidValue").key).toBe("daemons.web.health.failures")
  })
})
