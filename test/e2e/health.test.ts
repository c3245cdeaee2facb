/**
 * A liveness check through the built CLI with a real HTTP daemon: once its /health stops
 * answering (a file is touched), it is unhealthy after `failures` checks (in `list --json`, the
 * API and the events), its log says why, on_unhealthy runs, and it is restarted with a retry.
 */
import * as fs from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  freePort,
  makeDaemonSandbox,
  type Running,
  spawnCli,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 90_000
let sb: DaemonSandbox
let dir: string
let port: number
let follower: Running

// /health answers 200 until `sick` exists, then nothing; SIGTERM exits once `release` exists (so
// the test sees the daemon while its restart stops it).
const SERVER = `
const fs = require("node:fs")
const http = require("node:http")
http.createServer((req, res) => {
  if (req.url === "/health" && fs.existsSync("sick")) return
  res.end("ok")
}).listen(Number(process.env.PORT), "127.0.0.1")
process.on("SIGTERM", () => {
  const poll = () => (fs.existsSync("release") ? process.exit(0) : setTimeout(poll, 20))
  poll()
})
`

beforeAll(async () => {
  sb = makeDaemonSandbox()
  port = await freePort()
  dir = sb.project(
    "app",
    `
[daemons.web]
run = "exec node server.js"
port = ${port}
ready_http = "http://127.0.0.1:${port}/health"
retry = 1
stop_signal = { signal = "SIGTERM", timeout = "60s" }

[daemons.web.health]
http = "http://127.0.0.1:{{ daemons.web.port }}/health"
interval = "300ms"
timeout = "300ms"
failures = 3

[daemons.web.hooks]
on_unhealthy = "printf '%s' \\"$SUPERVISOR_HEALTH_OUTPUT\\" > unhealthy.txt"
`,
  )
  fs.writeFileSync(join(dir, "server.js"), SERVER)
})
afterAll(() => {
  // a stop under way waits for it
  if (dir !== undefined) fs.writeFileSync(join(dir, "release"), "")
  follower?.child.kill("SIGKILL")
  sb.destroy()
})

interface ListEntry {
  readonly id: { readonly qualified: string }
  readonly pid: number | null
  readonly status: { readonly type: string; readonly message?: string }
}
const listed = async () =>
  (JSON.parse((await sb.cliAsync(["list", "--json"], dir)).stdout) as Array<ListEntry>).find(
    (e) => e.id.qualified === "app/web",
  )

describe("health checks (e2e)", () => {
  it(
    "a daemon whose /health stops answering is unhealthy after 3 checks, then restarted",
    async () => {
      const started = await sb.cliAsync(["start", "web"], dir)
      expect(started.status, started.stderr).toBe(0)
      follower = spawnCli(["events", "--json", "--since", "0"], { cwd: dir, env: sb.env })
      const first = (await daemonEntry(sb.stateDir, "app/web"))!
      expect(first.status.type).toBe("running")

      fs.writeFileSync(join(dir, "sick"), "")
      const sick = await waitFor(
        "unhealthy in list --json",
        async () => {
          const e = await listed()
          return e?.status.type === "unhealthy" ? e : undefined
        },
        { timeout: 30_000 },
      )
      const url = `http://127.0.0.1:${port}/health`
      expect(sick.pid).toBe(first.pid)
      expect(sick.status.message).toBe(
        `health.http (${url}) failed 3 times in a row: GET ${url}: no answer within 300ms`,
      )
      expect((await daemonEntry(sb.stateDir, "app/web"))?.status.type).toBe("unhealthy")
      const line = await waitFor("the log line", async () =>
        (await storedLogs(sb.stateDir, "app/web")).find((l) => l.message.includes("unhealthy:")),
      )
      expect(line.message).toBe(
        `[supervisor] unhealthy: health.http (${url}) failed 3 times in a row: GET ${url}: no answer within 300ms; restarting it (retry 1 of 1)`,
      )
      const hook = await waitFor("on_unhealthy", () =>
        fs.existsSync(join(dir, "unhealthy.txt"))
          ? fs.readFileSync(join(dir, "unhealthy.txt"), "utf8")
          : undefined,
      )
      expect(hook).toBe(`GET ${url}: no answer within 300ms`)

      // the stop lets the process go; it is restarted after the retry's backoff, healthy
      fs.rmSync(join(dir, "sick"))
      fs.writeFileSync(join(dir, "release"), "")
      const again = await waitFor(
        "the restarted daemon",
        async () => {
          const e = await daemonEntry(sb.stateDir, "app/web")
          return e?.status.type === "running" && e.pid !== first.pid ? e : undefined
        },
        { timeout: 30_000 },
      )
      expect(again.retry_count).toBe(1)

      const events = await waitFor("the events up to the restart", () => {
        const all = follower
          .stdout()
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l) as { _tag: string; to?: string; reason?: string; source?: string })
        return all.filter((e) => e._tag === "DaemonStateChanged").length >= 6 ? all : undefined
      })
      const changes = events.filter((e) => e._tag === "DaemonStateChanged").map((e) => `${e.to} ${e.reason}`)
      expect(changes).toEqual([
        "waiting cli",
        "running ready",
        "unhealthy health",
        "errored health",
        "waiting retry",
        "running ready",
      ])
      expect(events).toContainEqual(expect.objectContaining({ _tag: "AutomationAction", source: "health" }))
    },
    T,
  )

  it("config validate refuses an interval shorter than the timeout, with file, line and key", async () => {
    const bad = sb.project(
      "bad",
      '[daemons.web]\nrun = "web"\n\n[daemons.web.health]\nport = 3000\ninterval = "1s"\ntimeout = "5s"\n',
    )
    const r = await sb.cliAsync(["config", "validate"], bad)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      `${join(bad, "supervisor.toml")}:4: daemons.web.health: interval 1s is shorter than timeout 5s: a check must end before the next one; raise interval or lower timeout`,
    )
  })
})
