// What the live front-ends cost an idle supervisor, and how fast a state change reaches a client.
// Usage: node bench/events.mjs [--daemons 200] [--seconds 60] [--settle 45] [--changes 200] [--background N]
//        [--front-ends web,tui] (which front-ends to open: web, tui or both) [--trace FILE] [--cpu-prof DIR]
// (build first: npm run build; needs Debian's chromium and tmux)
//
// 1. A supervisor with N running daemons (`exec sleep 3600`) and its web page on a free port.
// 2. Idle: the supervisor's CPU time (utime + stime of /proc/<pid>/stat) over `--seconds`, from
//    `--settle` seconds after the last change, first
//    with no front-end, then with the web page open in headless Chromium (logged in with the
//    token) and `supervisor tui` (default interval) in a 160x45 tmux session, both showing every
//    daemon. Printed as a percentage of one core.
// 3. Latency: a client follows `GET /api/events` (ndjson, over the Unix socket) while the bench
//    restarts daemons one at a time (`POST /api/commands`, `Restart`, `wait: "none"`), waiting
//    for each one's `running` event. For every event received: the time of receipt minus its
//    `at` (when the supervisor published it, same clock). p50 / p90 / p99 / max in ms. Once
//    before the front-ends open, once with both open (with the CPU each party used meanwhile).
//    Beside each, the machine's floor: a bare writer -> reader pair of processes over a Unix
//    socket (bench/latencyFloor.mjs), what waking a reader costs with no supervisor at all.
// `--background N` starts N busy processes first (bench/busy.mjs), for a busy machine.
// With the web page open, where the browser's time went during the restarts (Chromium's own
// Performance metrics over the DevTools protocol: script, style, layout, tasks) is printed too.
// `--trace FILE` writes Chromium's trace of those restarts (open it in chrome://tracing or
// Perfetto); `--cpu-prof DIR` runs the supervisor in the foreground with the background one's
// Node flags and `--cpu-prof`: its CPU profile lands in DIR when the bench stops it.

import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { chromium } from "playwright-core"
import { busyMode, busyProcesses } from "./busy.mjs"
import { floorPair } from "./latencyFloor.mjs"
import { cpuMs } from "./proc.mjs"
import { BIN, benchSandbox, freePort, supervisorEnv, supervisorNodeFlags } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = {
  daemons: "200",
  seconds: "60",
  // V8's memory reducer runs its full collections some 25 s after a burst (the start of all, the
  // front-ends' first requests): a window that starts sooner measures them, not the idle state
  settle: "45",
  changes: "200",
  background: "0",
  "front-ends": "web,tui",
  trace: "",
  "cpu-prof": "",
}
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const fronts = options["front-ends"]
const N = Number(options.daemons)
const SECONDS = Number(options.seconds)
const root = mkdtempSync(join(tmpdir(), "sv-events-bench-"))
const project = join(root, "many")
mkdirSync(project)
const id = (i) => `d${String(i + 1).padStart(3, "0")}`
writeFileSync(
  join(project, "supervisor.toml"),
  Array.from({ length: N }, (_, i) => `[daemons.${id(i)}]\nrun = "exec sleep 3600"\nready_delay = 0\n`).join(
    "\n",
  ),
)
const { env, cli } = benchSandbox(root, project, { TERM: "xterm-256color" })
const socketPath = join(env.SUPERVISOR_STATE_DIR, "sock", "api.sock")
const tmuxSocket = `sv-events-bench-${process.pid}`
const tmux = (...a) =>
  spawnSync("tmux", ["-L", tmuxSocket, "-f", "/dev/null", ...a], { encoding: "utf8", env })
const waitFor = async (what, test, ms = 120_000) => {
  const deadline = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
}
/** The supervisor's CPU over the window, as % of one core. */
const idleCpu = async (pid) => {
  // past the start of all, the front-ends' first requests, and the warm-up of the sampling (its
  // first passes read every process and its code is not optimised yet)
  await sleep(Number(options.settle) * 1000)
  const before = cpuMs(pid)
  const start = Date.now()
  await sleep(SECONDS * 1000)
  return ((cpuMs(pid) - before) / (Date.now() - start)) * 100
}
const post = (path, body) =>
  new Promise((ok, fail) => {
    const req = request(
      { socketPath, path, method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        res.resume()
        res.on("end", () =>
          res.statusCode === 200 ? ok() : fail(new Error(`${path}: HTTP ${res.statusCode}`)),
        )
      },
    )
    req.on("error", fail)
    req.end(JSON.stringify(body))
  })
/** Follows the stream while `changes` daemons restart one at a time (from the `offset`th): every event's latency, sorted. */
const latencyPhase = async (changes, offset) => {
  const floor = await floorPair(root)
  const latencies = []
  let waiting
  const stream = request(
    { socketPath, path: "/api/events", headers: { accept: "application/x-ndjson" } },
    (res) => {
      let rest = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => {
        const now = Date.now()
        const lines = (rest + chunk).split("\n")
        rest = lines.pop()
        for (const line of lines) {
          if (line.trim() === "") continue
          const event = JSON.parse(line)
          if (typeof event.at !== "number") continue
          latencies.push(now - event.at)
          if (waiting?.(event)) waiting = undefined
        }
      })
    },
  )
  stream.end()
  await sleep(1000)
  latencies.length = 0 // the replayed history is not latency
  for (let i = 0; i < changes; i++) {
    const target = `many/${id((offset + i) % N)}`
    const seen = new Promise((ok) => {
      waiting = (e) => {
        const done = e._tag === "DaemonStateChanged" && e.id === target && e.to === "running"
        if (done) ok()
        return done
      }
    })
    await post("/api/commands", {
      _tag: "Restart",
      selection: { ids: [target] },
      wait: "none",
      reason: "api",
    })
    await Promise.race([
      seen,
      sleep(30_000).then(() => Promise.reject(new Error(`no running event for ${target}`))),
    ])
  }
  stream.destroy()
  return { latencies: [...latencies].sort((a, b) => a - b), floor: await floor.stop() }
}
/** CPU ms of `pid` and all its descendants (utime + stime); with `only`, of those whose name matches. */
const treeCpuMs = (pid, only = /./) => {
  const children = new Map()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch {}
  }
  let total = 0
  const visit = (p) => {
    try {
      if (only.test(readFileSync(`/proc/${p}/comm`, "utf8"))) total += cpuMs(p)
    } catch {}
    for (const c of children.get(p) ?? []) visit(c)
  }
  visit(pid)
  return total
}
const summary = (sorted) =>
  `p50 ${pct(sorted, 50)} ms, p90 ${pct(sorted, 90)} ms, p99 ${pct(sorted, 99)} ms, max ${sorted.at(-1)} ms`
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

const background = busyProcesses(Number(options.background))
let browser
/** The page's DevTools session, for its Performance metrics. */
let devtools
const pageMetrics = async () =>
  devtools === undefined
    ? undefined
    : Object.fromEntries(
        (await devtools.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]),
      )
try {
  const port = await freePort()
  if (options["cpu-prof"]) {
    const argv = [
      ...supervisorNodeFlags(),
      "--cpu-prof",
      `--cpu-prof-dir=${resolve(options["cpu-prof"])}`,
      BIN,
      "supervisor",
      "run",
    ]
    spawn(process.execPath, argv, {
      env: { ...env, ...supervisorEnv(), SUPERVISOR_WEB_PORT: String(port) },
      stdio: "ignore",
    })
    await waitFor("the supervisor", () => {
      try {
        return JSON.parse(cli("supervisor", "status", "--json")).running
      } catch {
        return false
      }
    })
  } else cli("supervisor", "start", "--web-port", String(port))
  cli("start", "--all", "--quiet")
  const svPid = JSON.parse(cli("supervisor", "status", "--json")).pid
  const bare = await idleCpu(svPid)
  const changes = Number(options.changes)
  const alone = await latencyPhase(changes, 0)

  if (fronts.includes("web")) {
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] })
    const page = await (await browser.newContext()).newPage()
    await page.goto(`http://127.0.0.1:${port}/`)
    await page.locator("#token").fill(cli("supervisor", "token").trim())
    await page.locator("#login-form button[type=submit]").click()
    await page.locator(`#daemons tr[data-id="many/${id(N - 1)}"]`).waitFor({ timeout: 60_000 })
    devtools = await page.context().newCDPSession(page)
    await devtools.send("Performance.enable")
  }
  if (fronts.includes("tui")) {
    tmux(
      "new-session",
      "-d",
      "-x",
      "160",
      "-y",
      "45",
      "-s",
      "bench",
      "-c",
      project,
      `${process.execPath} ${BIN} tui`,
    )
    await waitFor("the dashboard", () =>
      tmux("capture-pane", "-p", "-t", "bench").stdout.includes(`${N} daemons`),
    )
  }
  const watched = await idleCpu(svPid)

  const tuiPid = fronts.includes("tui")
    ? Number(tmux("list-panes", "-t", "bench", "-F", "#{pane_pid}").stdout.trim())
    : undefined
  // the browser: this script's descendants named chrom*
  const parties = () => [
    cpuMs(svPid),
    treeCpuMs(process.pid, /^chrom/),
    tuiPid === undefined ? 0 : treeCpuMs(tuiPid),
    cpuMs(process.pid),
  ]
  const before = parties()
  const metricsBefore = await pageMetrics()
  if (options.trace && browser) await browser.startTracing(undefined, { path: resolve(options.trace) })
  const phaseStart = Date.now()
  const loaded = await latencyPhase(changes, changes)
  const phaseMs = Date.now() - phaseStart
  const metricsAfter = await pageMetrics()
  if (options.trace && browser) await browser.stopTracing()
  const spent = parties().map((after, i) => ((after - before[i]) / phaseMs) * 100)
  console.log(
    `idle supervisor, ${N} running daemons, ${SECONDS} s: ${bare.toFixed(2)}% of one core with no front-end; ${watched.toFixed(2)}% with ${fronts} open`,
  )
  console.log(`event latency (publish to client), ${changes} restarts each:`)
  console.log(`  no front-end: ${alone.latencies.length} events, ${summary(alone.latencies)}`)
  console.log(`    the machine's floor meanwhile (bare writer -> reader): ${summary(alone.floor)}`)
  console.log(`  ${fronts} open: ${loaded.latencies.length} events, ${summary(loaded.latencies)}`)
  console.log(`    the machine's floor meanwhile (bare writer -> reader): ${summary(loaded.floor)}`)
  console.log(
    `  CPU during those restarts (% of one core): supervisor ${spent[0].toFixed(0)}%, browser ${spent[1].toFixed(0)}%, dashboard ${spent[2].toFixed(0)}%, this bench (the client, and the browser's driver) ${spent[3].toFixed(0)}%`,
  )
  if (metricsBefore && metricsAfter) {
    const d = (k) => metricsAfter[k] - metricsBefore[k]
    const share = (k) =>
      `${k.replace("Duration", "").toLowerCase()} ${((d(k) * 1000 * 100) / phaseMs).toFixed(0)}%`
    console.log(
      `  the page's main thread meanwhile (% of the phase): ${["TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration"].map(share).join(", ")}; ${d("LayoutCount")} layouts, ${d("RecalcStyleCount")} style recalculations`,
    )
  }
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? "unknown CPU"}, node ${process.version}, load average ${loadavg()[0].toFixed(1)}, ${background.pids.length} busy background processes (${busyMode})`,
  )
} finally {
  await browser?.close()
  tmux("kill-server")
  try {
    cli("supervisor", "stop")
  } catch {}
  background.stop()
  rmSync(root, { recursive: true, force: true })
}
