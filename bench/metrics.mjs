// What a Prometheus scrape costs: GET /metrics on a supervisor with 200 running daemons.
// Usage: node bench/metrics.mjs [--daemons 200] [--requests 200] [--warmup 20]
// Starts a supervisor (built CLI, `--web-port 0`) on a fresh state directory, starts the
// daemons (`sleep`), waits until all run, then times `--requests` sequential scrapes with the
// token over one keep-alive connection (after `--warmup` untimed ones) and prints the median,
// p90 and max latency, the response size, the supervisor's CPU time per scrape (from
// /proc/<pid>/stat, less what it uses idle over as long, measured for 5 s first: what the scrape
// costs whatever the machine's load) and the machine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { cpuMs } from "./proc.mjs"
import { benchSandbox } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = { daemons: "200", requests: "200", warmup: "20" }
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const N = Number(options.daemons)
const root = mkdtempSync(join(tmpdir(), "sv-metrics-bench-"))
const project = join(root, "many")
mkdirSync(project)
writeFileSync(
  join(project, "supervisor.toml"),
  Array.from({ length: N }, (_, i) => `[daemons.d${i + 1}]\nrun = "exec sleep 3600"\nready_delay = 0\n`).join(
    "\n",
  ),
)
const { cli } = benchSandbox(root, project, { NO_COLOR: "1" })

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const get = (url, token) =>
  new Promise((ok, fail) => {
    const t0 = process.hrtime.bigint()
    const req = request(url, { agent, headers: { "x-supervisor-token": token } }, (res) => {
      let size = 0
      res.on("data", (c) => {
        size += c.length
      })
      res.on("end", () =>
        ok({ status: res.statusCode, size, ms: Number(process.hrtime.bigint() - t0) / 1e6 }),
      )
    })
    req.on("error", fail)
    req.end()
  })

try {
  cli("supervisor", "start", "--web-port", "0")
  const status = JSON.parse(cli("supervisor", "status", "--json"))
  const base = status.web_url
  const token = cli("supervisor", "token").trim()
  cli("start", "--all")
  for (let i = 0; i < 600; i++) {
    const body = await new Promise((ok) =>
      request(`${base}/metrics`, { headers: { "x-supervisor-token": token } }, (res) => {
        let s = ""
        res.on("data", (c) => {
          s += c
        })
        res.on("end", () => ok(s))
      }).end(),
    )
    const running = body
      .split("\n")
      .filter((l) => l.startsWith("supervisor_daemon_status{") && l.includes('status="running"} 1')).length
    if (running === N) break
    await sleep(100)
  }
  for (let i = 0; i < Number(options.warmup); i++) await get(`${base}/metrics`, token)
  // what the supervisor uses meanwhile without scrapes (its 200 log followers): subtracted below
  const idle0 = cpuMs(status.pid)
  const idleStart = Date.now()
  await sleep(5000)
  const idlePerMs = (cpuMs(status.pid) - idle0) / (Date.now() - idleStart)
  const times = []
  let size = 0
  const cpu0 = cpuMs(status.pid)
  const start = Date.now()
  for (let i = 0; i < Number(options.requests); i++) {
    const r = await get(`${base}/metrics`, token)
    if (r.status !== 200) throw new Error(`GET /metrics: HTTP ${r.status}`)
    times.push(r.ms)
    size = r.size
  }
  const busy = cpuMs(status.pid) - cpu0
  const cpuPerScrape = (busy - idlePerMs * (Date.now() - start)) / times.length
  times.sort((a, b) => a - b)
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2)
  console.log(
    `GET /metrics, ${N} running daemons, ${times.length} requests: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${times.at(-1).toFixed(2)} ms; ${size} bytes; supervisor CPU ${cpuPerScrape.toFixed(1)} ms per scrape (${(busy / times.length).toFixed(1)} ms before subtracting its idle ${(idlePerMs * 1000).toFixed(0)} ms/s)`,
  )
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? "unknown CPU"}, node ${process.version}, load average ${loadavg()[0].toFixed(1)}`,
  )
} finally {
  agent.destroy()
  try {
    cli("supervisor", "stop")
  } catch {}
  rmSync(root, { recursive: true, force: true })
}
