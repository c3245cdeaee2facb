/**
 * GET /metrics through a real supervisor started by the built CLI: token-protected like the API,
 * the Prometheus text format read back with a parser from npm, per-daemon and supervisor
 * metrics, and `metrics.public` serving a loopback scrape without the token.
 */
import { request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ParsedFamily, parsePrometheus, sampleValue } from "../metrics/prometheus.js"
import { type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 30_000

interface Reply {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

const get = (base: string, path: string, token: string | null, method = "GET"): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = token === null ? {} : { "x-supervisor-token": token }
    const req = request(new URL(path, base), { method, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        body += c
      })
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body }),
      )
    })
    req.on("error", reject)
    req.end()
  })

/** Starts a supervisor with a web listener on a free port; its URL and token. */
const startSupervisor = (sb: DaemonSandbox, dir: string, env?: Record<string, string>) => {
  const started = sb.cli(["supervisor", "start", "--web-port", "0"], dir, env)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], dir, env).stdout) as {
    web_url: string
  }
  return { base: status.web_url, token: sb.cli(["supervisor", "token"], dir, env).stdout.trim() }
}

describe("GET /metrics (e2e)", () => {
  let sb: DaemonSandbox
  let dir: string
  let base: string
  let token: string
  const scrape = async (): Promise<ReadonlyArray<ParsedFamily>> => {
    const r = await get(base, "/metrics", token)
    expect(r.status, r.body).toBe(200)
    return parsePrometheus(r.body)
  }

  beforeAll(() => {
    sb = makeDaemonSandbox()
    dir = sb.project(
      "app",
      `[daemons.web]\nrun = "echo hello; echo 'second line'; exec sleep 300"\nready_delay = 0.3\n\n[daemons.crash]\nrun = "echo boom; exit 1"\nretry = 2\n`,
    )
    ;({ base, token } = startSupervisor(sb, dir))
    expect(sb.cli(["start", "web"], dir).status).toBe(0)
  }, T)
  afterAll(() => sb.destroy())

  it(
    "needs the token like the API; answers in the Prometheus text format with HELP and TYPE lines",
    async () => {
      const none = await get(base, "/metrics", null)
      expect(none.status).toBe(401)
      expect(JSON.parse(none.body)).toMatchObject({ _tag: "Unauthorized" })
      expect((await get(base, "/metrics", "0".repeat(64))).status).toBe(401)
      const r = await get(base, "/metrics", token)
      expect(r.status).toBe(200)
      expect(r.contentType).toBe("text/plain; version=0.0.4; charset=utf-8")
      expect(r.body).toContain("# HELP supervisor_daemon_restarts_total ")
      expect(r.body).toContain("# TYPE supervisor_daemon_restarts_total counter")
      expect(r.body).toContain('supervisor_daemon_restarts_total{daemon="app/web"} 0')
      // only GET is served
      expect((await get(base, "/metrics", token, "POST")).status).not.toBe(200)
    },
    T,
  )

  it(
    "per daemon: status, uptime, CPU, tree memory, log lines and bytes, readiness duration",
    async () => {
      const d = { daemon: "app/web" }
      const m = await waitFor("the web daemon's two lines in its log metrics", async () => {
        const parsed = await scrape()
        return (sampleValue(parsed, "supervisor_daemon_log_lines_total", d) ?? 0) >= 2 ? parsed : undefined
      })
      expect(sampleValue(m, "supervisor_daemon_status", { ...d, status: "running" })).toBe(1)
      expect(sampleValue(m, "supervisor_daemon_status", { ...d, status: "stopped" })).toBeUndefined()
      expect(sampleValue(m, "supervisor_daemon_uptime_seconds", d)).toBeGreaterThan(0)
      expect(sampleValue(m, "supervisor_daemon_cpu_seconds_total", d)).toBeGreaterThanOrEqual(0)
      expect(sampleValue(m, "supervisor_daemon_resident_memory_bytes", d)).toBeGreaterThan(100_000)
      expect(sampleValue(m, "supervisor_daemon_log_bytes_total", d)).toBeGreaterThanOrEqual(
        "hello\nsecond line\n".length,
      )
      const ready = sampleValue(m, "supervisor_daemon_ready_duration_seconds", d) ?? -1
      expect(ready).toBeGreaterThanOrEqual(0.3)
      expect(ready).toBeLessThan(10)
      expect(sampleValue(m, "supervisor_daemon_retries", d)).toBe(0)
    },
    T,
  )

  it(
    "restarts count every spawn after the first: retries of a crashing daemon and an API restart",
    async () => {
      sb.cli(["start", "crash"], dir)
      const crash = { daemon: "app/crash" }
      const m = await waitFor("app/crash failed after its two retries", async () => {
        const parsed = await scrape()
        return sampleValue(parsed, "supervisor_daemon_status", { ...crash, status: "failed" }) === 1 ||
          sampleValue(parsed, "supervisor_daemon_status", { ...crash, status: "errored" }) === 1
          ? (sampleValue(parsed, "supervisor_daemon_restarts_total", crash) ?? 0) >= 2
            ? parsed
            : undefined
          : undefined
      })
      expect(sampleValue(m, "supervisor_daemon_restarts_total", crash)).toBe(2)
      expect(sampleValue(m, "supervisor_daemon_retries", crash)).toBe(2)
      expect(sampleValue(m, "supervisor_daemon_uptime_seconds", crash)).toBe(0)
      const web = { daemon: "app/web" }
      expect((await get(base, "/api/daemons/app%2Fweb/restart", token, "POST")).status).toBe(200)
      await waitFor("app/web restarted once", async () =>
        sampleValue(await scrape(), "supervisor_daemon_restarts_total", web) === 1 ? true : undefined,
      )
    },
    T,
  )

  it(
    "the supervisor: its memory, event-loop lag, and requests by method, route and status code",
    async () => {
      await get(base, "/api/daemons/app%2Fweb", token)
      await get(base, "/api/daemons", null)
      const m = await scrape()
      expect(sampleValue(m, "supervisor_resident_memory_bytes")).toBeGreaterThan(1_000_000)
      const lag = sampleValue(m, "supervisor_event_loop_lag_seconds", { quantile: "0.99" })
      expect(lag).toBeGreaterThanOrEqual(0)
      expect(lag).toBeLessThan(5)
      expect(sampleValue(m, "supervisor_event_loop_lag_max_seconds")).toBeGreaterThanOrEqual(0)
      const requests = "supervisor_http_requests_total"
      expect(sampleValue(m, requests, { method: "GET", route: "/api/daemons/:id", code: "200" })).toBe(1)
      expect(sampleValue(m, requests, { method: "GET", route: "/api/daemons", code: "401" })).toBe(1)
      expect(sampleValue(m, requests, { method: "GET", route: "/metrics", code: "401" })).toBe(2)
      expect(sampleValue(m, requests, { method: "GET", route: "/metrics", code: "200" })).toBeGreaterThan(2)
    },
    T,
  )
})

/** GET on the supervisor's Unix socket (its file mode is its authentication: no token). */
const socketGet = (stateDir: string, path: string): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath: join(stateDir, "sock", "api.sock"), path, agent: false }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        body += c
      })
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body }),
      )
    })
    req.on("error", reject)
    req.end()
  })

describe("metrics.public (e2e)", () => {
  let sb: DaemonSandbox
  afterAll(() => sb?.destroy())

  it(
    "serves GET /metrics without the token to a loopback client; the rest of the API still needs it",
    async () => {
      sb = makeDaemonSandbox()
      sb.write({ "home/.config/supervisor/config.toml": "[settings.metrics]\npublic = true\n" })
      const dir = sb.project("pub", `[daemons.one]\nrun = "exec sleep 300"\nready_delay = 0.1\n`)
      const { base } = startSupervisor(sb, dir)
      expect(sb.cli(["start", "one"], dir).status).toBe(0)
      const r = await get(base, "/metrics", null)
      expect(r.status, r.body).toBe(200)
      const m = parsePrometheus(r.body)
      expect(sampleValue(m, "supervisor_daemon_status", { daemon: "pub/one", status: "running" })).toBe(1)
      expect((await get(base, "/api/daemons", null)).status).toBe(401)
      // the Unix socket serves them too, as it serves the API
      const viaSocket = await socketGet(sb.stateDir, "/metrics")
      expect(viaSocket.status).toBe(200)
      expect(
        sampleValue(parsePrometheus(viaSocket.body), "supervisor_daemon_retries", { daemon: "pub/one" }),
      ).toBe(0)
    },
    T,
  )
})
