// `[daemons.<name>.logs]`, `pty` and `[settings.logs]` through the loader: values, defaults,
// and problems with file, line, key and hint.
import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("[daemons.<name>.logs] and pty", () => {
  it("are read as written; a daemon without them has none (text) and pty = false", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.api]",
        'run = "node api.js"',
        "pty = true",
        "[daemons.api.logs]",
        'log_format = "json"',
        'time_retention = "7d"',
        "line_retention = 10000",
        "",
        "[daemons.plain]",
        'run = "x"',
      ),
    })
    const c = await loadOk(sb, { cwd: "app" })
    const api = c.daemons["app/api"]!.config
    expect(api.pty).toBe(true)
    expect(api.logs?.log_format).toBe("json")
    expect(Duration.toMillis(api.logs!.time_retention!)).toBe(7 * 86_400_000)
    expect(api.logs?.line_retention).toBe(10000)
    const plain = c.daemons["app/plain"]!.config
    expect(plain.pty).toBe(false)
    expect(plain.logs).toBeUndefined()
  })

  it("a bad log_format is an error at its line and key, naming the formats", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.api]", 'run = "x"', "[daemons.api.logs]", 'log_format = "xml"'),
    })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidValue")
    expect(p.line).toBe(4)
    expect(p.key).toBe("daemons.api.logs.log_format")
    expect(p.message).toMatch(/text.*json.*logfmt.*auto/)
  })

  it("a typo in the logs table gets a did-you-mean hint; line_retention must be 1 or more", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.api]",
        'run = "x"',
        "pty = 1",
        "[daemons.api.logs]",
        'log_fromat = "json"',
        "line_retention = 0",
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const typo = only(err, "UnknownKey")
    expect(typo.key).toBe("daemons.api.logs.log_fromat")
    expect(typo.hint).toContain('did you mean "log_format"?')
    const values = err.problems.filter((p) => p._tag === "InvalidValue")
    expect(values.map((p) => [p.key, p.line])).toEqual([
      ["daemons.api.pty", 3],
      ["daemons.api.logs.line_retention", 6],
    ])
  })
})

describe("[settings.logs]", () => {
  it("in the user config: defaults of every daemon, and the archive hook", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[settings.logs]",
        'log_format = "auto"',
        'time_retention = "30d"',
        "[settings.logs.archive_hook]",
        'command = "gzip -c >> archive.jsonl.gz"',
        "batch_size = 500",
      ),
    })
    const c = await loadOk(sb, { cwd: "home" })
    expect(c.settings.logs.log_format).toBe("auto")
    expect(Duration.toMillis(c.settings.logs.time_retention!)).toBe(30 * 86_400_000)
    expect(c.settings.logs.archive_hook).toEqual({ command: "gzip -c >> archive.jsonl.gz", batch_size: 500 })
  })

  it("SUPERVISOR_LOGS_LOG_FORMAT overrides it; a bad value names the variable", async () => {
    const sb = sandbox()
    const c = await loadOk(sb, { cwd: "home", env: { SUPERVISOR_LOGS_LOG_FORMAT: "logfmt" } })
    expect(c.settings.logs.log_format).toBe("logfmt")
    const p = only(
      await loadErr(sb, { cwd: "home", env: { SUPERVISOR_LOGS_LINE_RETENTION: "lots" } }),
      "InvalidEnvOverride",
    )
    expect(p.key).toBe("settings.logs.line_retention")
    expect(p.hint).toContain("SUPERVISOR_LOGS_LINE_RETENTION")
  })
})
