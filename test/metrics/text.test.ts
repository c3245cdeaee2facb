import { describe, expect, it } from "vitest"
import { type DaemonFacts, daemonFamilies } from "../../src/metrics/daemons.js"
import { makeRequestCounter, routeOf } from "../../src/metrics/requests.js"
import { escapeLabelValue, render } from "../../src/metrics/text.js"
import { parsePrometheus, sampleValue } from "./prometheus.js"

const facts = (over: Partial<DaemonFacts> = {}): DaemonFacts => ({
  id: "proj/api",
  status: "running",
  restarts: 2,
  retries: 1,
  uptimeSeconds: 12.5,
  cpuSeconds: 0.75,
  memoryBytes: 4096,
  logLines: 10,
  logBytes: 321,
  readySeconds: 0.25,
  ...over,
})

describe("Prometheus text format", () => {
  it("escapes backslash, double quote and newline in label values", () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd')
  })

  it("writes HELP and TYPE lines, and a parser reads back every per-daemon value", () => {
    const text = render(daemonFamilies([facts()]))
    expect(text).toContain("# TYPE supervisor_daemon_restarts_total counter\n")
    expect(text).toContain('supervisor_daemon_restarts_total{daemon="proj/api"} 2\n')
    const parsed = parsePrometheus(text)
    const d = { daemon: "proj/api" }
    expect(sampleValue(parsed, "supervisor_daemon_status", { ...d, status: "running" })).toBe(1)
    // one status sample per daemon
    expect(parsed.find((f) => f.name === "supervisor_daemon_status")?.metrics).toHaveLength(1)
    expect(sampleValue(parsed, "supervisor_daemon_retries", d)).toBe(1)
    expect(sampleValue(parsed, "supervisor_daemon_uptime_seconds", d)).toBe(12.5)
    expect(sampleValue(parsed, "supervisor_daemon_cpu_seconds_total", d)).toBe(0.75)
    expect(sampleValue(parsed, "supervisor_daemon_resident_memory_bytes", d)).toBe(4096)
    expect(sampleValue(parsed, "supervisor_daemon_log_lines_total", d)).toBe(10)
    expect(sampleValue(parsed, "supervisor_daemon_log_bytes_total", d)).toBe(321)
    expect(sampleValue(parsed, "supervisor_daemon_ready_duration_seconds", d)).toBe(0.25)
    expect(parsed.find((f) => f.name === "supervisor_daemon_restarts_total")?.type).toBe("COUNTER")
  })

  it("a daemon ID with quotes and backslashes survives the round trip; unknown values are left out", () => {
    const odd = 'ns/we"ird\\name'
    const parsed = parsePrometheus(
      render(daemonFamilies([facts({ id: odd, cpuSeconds: undefined, memoryBytes: undefined })])),
    )
    expect(sampleValue(parsed, "supervisor_daemon_restarts_total", { daemon: odd })).toBe(2)
    expect(parsed.find((f) => f.name === "supervisor_daemon_cpu_seconds_total")).toBeUndefined()
    expect(parsed.find((f) => f.name === "supervisor_daemon_resident_memory_bytes")).toBeUndefined()
  })

  it("counts requests under route templates, not one series per daemon ID", () => {
    expect(routeOf("/api/daemons/app%2Fweb/start")).toBe("/api/daemons/:id/start")
    expect(routeOf("/api/daemons")).toBe("/api/daemons")
    expect(routeOf("/metrics")).toBe("/metrics")
    expect(routeOf("/nope/at/all")).toBe("other")
    const c = makeRequestCounter()
    c.count("POST", routeOf("/api/daemons/a%2Fb/start"), 200)
    c.count("POST", routeOf("/api/daemons/c%2Fd/start"), 200)
    c.count("GET", "/metrics", 401)
    const parsed = parsePrometheus(render([c.family()]))
    const name = "supervisor_http_requests_total"
    expect(sampleValue(parsed, name, { method: "POST", route: "/api/daemons/:id/start", code: "200" })).toBe(
      2,
    )
    expect(sampleValue(parsed, name, { method: "GET", route: "/metrics", code: "401" })).toBe(1)
  })
})
