// The supervisor under load: many daemons, many API clients and log tails during a log flood.
// Usage: node bench/load.mjs [--daemons 200] [--clients 50] [--tails 20] [--lines 1000000]
//          [--flooders 10] [--seconds 20] [--tail-kind both|cli|api] [--json FILE]
// (build first: npm run build)
//
// `--daemons` daemons in one project: `--flooders` of them print `--lines` numbered lines in all
// (`exec seq 1 N`, N = lines / flooders), the others sleep. With the others running, `--tails`
// log tails follow the flooders (half `supervisor logs ID --tail --json`, half
// `GET /api/logs/{id}/tail`), `--clients` API clients loop over list (GET /api/daemons), status
// (GET /api/daemons/{id}), start and stop (of a pool of sleeping daemons) with the token, and
// the flooders are started. It ends once the flood is stored, every tail has caught up and the
// clients have run `--seconds`.
// Measured: every request's latency and outcome (none may fail), the supervisor's RSS every
// 100 ms (peak, and VmHWM at the end), and for each flooder that its stored log and each tail
// hold 1..N in order, none lost, none twice. Everything runs in a temp dir with its own HOME and
// SUPERVISOR_STATE_DIR; the supervisor and its daemons are stopped at the end, also on error.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import { dirname, join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const BIN = join(repo, "dist", "supervisor.cjs")
const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : fallback
}
const DAEMONS = Number(opt("daemons", "200"))
const CLIENTS = Number(opt("clients", "50"))
const TAILS = Number(opt("tails", "20"))
const LINES = Number(opt("lines", "1000000"))
const FLOODERS = Number(opt("flooders", "10"))
/** The clients run at least this long, the flood within it. */
const SECONDS = Number(opt("seconds", "20"))
/** Which tails: both kinds alternately, or only `cli` or `api` ones. */
const TAIL_KIND = opt("tail-kind", "both")
const jsonOut = opt("json", undefined)
const PER = Math.floor(LINES / FLOODERS)
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 23)}]`, ...a)

const root = mkdtempSync(join(os.tmpdir(), "sv-bench-load-"))
const home = join(root, "home")
const project = join(root, "project")
mkdirSync(home, { recursive: true })
mkdirSync(project, { recursive: true })
const freePort = () =>
  new Promise((res, rej) => {
    const s = net.createServer()
    s.on("error", rej)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => res(port))
    })
  })
const apiPort = await freePort()
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  SUPERVISOR_CONFIG_DIR: join(home, ".config", "supervisor"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
  SUPERVISOR_API_PORT: String(apiPort),
  NO_COLOR: "1",
  ...(process.env.NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.NODE_OPTIONS }),
}
const cli = (...argv) => {
  const r = spawnSync(process.execPath, [BIN, ...argv], {
    cwd: project,
    env,
    encoding: "utf8",
    maxBuffer: 1 << 30,
    timeout: 600_000,
  })
  if (r.status !== 0) throw new Error(`supervisor ${argv.join(" ")}: ${r.stderr || r.error?.message}`)
  return r.stdout
}
const children = new Set()
const cleanup = () => {
  for (const c of children) c.kill("SIGKILL")
  spawnSync(process.execPath, [BIN, "supervisor", "stop"], { cwd: project, env, timeout: 120_000 })
  rmSync(root, { recursive: true, force: true })
}
process.on("SIGINT", () => {
  cleanup()
  process.exit(130)
})

const pad = (n) => String(n).padStart(3, "0")
const flooders = Array.from({ length: FLOODERS }, (_, i) => `f${pad(i)}`)
const sleepers = Array.from({ length: DAEMONS - FLOODERS }, (_, i) => `d${pad(i)}`)
/** The sleeping daemons the clients start and stop (the last fifth). */
const churn = sleepers.slice(Math.floor(sleepers.length * 0.8))
const namespace = "load"
const qualified = (name) => `${namespace}/${name}`

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + TAILS })
let token = ""
/** One API request: its status, body and latency in ms. */
const request = (method, path) =>
  new Promise((res) => {
    const t0 = performance.now()
    const req = http.request(
      { host: "127.0.0.1", port: apiPort, method, path, agent, headers: { "x-supervisor-token": token } },
      (r) => {
        let body = ""
        r.setEncoding("utf8")
        r.on("data", (d) => {
          body += d
        })
        r.on("end", () => res({ status: r.statusCode, body, ms: performance.now() - t0 }))
      },
    )
    req.on("error", (e) => res({ status: 0, body: String(e), ms: performance.now() - t0 }))
    req.end()
  })

const quantile = (xs, q) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

/** Checks that `numbers` is exactly 1..PER in order; what is wrong otherwise. */
const checkSequence = (numbers) => {
  let missing = 0
  let outOfOrder = 0
  let expected = 1
  for (const n of numbers) {
    if (n === expected) expected++
    else if (n > expected) {
      missing += n - expected
      expected = n + 1
    } else outOfOrder++
  }
  missing += PER + 1 - expected
  return { count: numbers.length, missing, outOfOrder }
}

const main = async () => {
  writeFileSync(
    join(project, "supervisor.toml"),
    [
      `namespace = "${namespace}"`,
      ...flooders.map((f) => `[daemons.${f}]\nrun = "exec seq 1 ${PER}"\nready_delay = 0`),
      ...sleepers.map((d) => `[daemons.${d}]\nrun = "exec sleep 100000"\nready_delay = 0`),
      "",
    ].join("\n"),
  )
  cli("supervisor", "start")
  token = cli("supervisor", "token").trim()
  const pid = JSON.parse(cli("supervisor", "status", "--json")).pid
  log(`supervisor pid ${pid}, API on ${apiPort}; starting ${sleepers.length} sleeping daemons`)
  cli("start", "--quiet", ...sleepers)

  // RSS of the supervisor every 100 ms
  const rss = []
  const status = () => readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? Number.NaN)
  const rssBefore = kib(status(), "VmRSS")
  const sampler = setInterval(() => rss.push(kib(status(), "VmRSS")), 100)

  // the tails, first: they see the flood from its first line
  const tails = []
  for (let i = 0; i < TAILS; i++) {
    const f = flooders[i % FLOODERS]
    const numbers = []
    if (TAIL_KIND === "cli" || (TAIL_KIND === "both" && i % 2 === 0)) {
      const child = spawn(process.execPath, [BIN, "logs", f, "--tail", "--json", "-n", "0"], {
        cwd: project,
        env,
        stdio: ["ignore", "pipe", "inherit"],
      })
      children.add(child)
      createInterface({ input: child.stdout }).on("line", (line) => {
        const m = JSON.parse(line).message
        numbers.push(Number(m))
      })
      tails.push({ kind: "CLI", daemon: f, numbers, stop: () => child.kill() })
    } else {
      const req = http.get(
        {
          host: "127.0.0.1",
          port: apiPort,
          path: `/api/logs/${encodeURIComponent(qualified(f))}/tail?lines=0`,
          headers: { "x-supervisor-token": token },
        },
        (res) => {
          if (res.statusCode !== 200) throw new Error(`tail ${f}: ${res.statusCode}`)
          res.on("error", () => undefined) // the tail is ended by destroying its request
          const lines = createInterface({ input: res })
          lines.on("error", () => undefined)
          lines.on("line", (line) => {
            const item = JSON.parse(line)
            if (item._clear !== true) numbers.push(Number(item.message))
          })
        },
      )
      req.on("error", () => undefined)
      tails.push({ kind: "API", daemon: f, numbers, stop: () => req.destroy() })
    }
  }
  // the CLI tails subscribe when their process has started: wait until each printed nothing but runs
  await new Promise((r) => setTimeout(r, 3000))

  // the clients
  const latencies = { list: [], status: [], start: [], stop: [] }
  const failures = []
  const refused = new Map()
  let running = true
  const client = async (n) => {
    let i = n
    while (running) {
      i = (i * 1103515245 + 12345) % 2147483648
      const pick = i % 100
      const d = churn[i % churn.length]
      const [op, method, path] =
        pick < 40
          ? ["list", "GET", "/api/daemons"]
          : pick < 70
            ? [
                "status",
                "GET",
                `/api/daemons/${encodeURIComponent(qualified(sleepers[i % sleepers.length]))}`,
              ]
            : pick < 85
              ? ["start", "POST", `/api/daemons/${encodeURIComponent(qualified(d))}/start`]
              : ["stop", "POST", `/api/daemons/${encodeURIComponent(qualified(d))}/stop`]
      const r = await request(method, path)
      latencies[op].push(r.ms)
      // a request fails when it gets no answer or an error status; `ok: false` is an answer (a
      // start that a concurrent stop ended says so), counted apart with its reason
      if (r.status !== 200) failures.push({ op, path, status: r.status, body: r.body.slice(0, 200) })
      else if (op === "start" || op === "stop") {
        const body = JSON.parse(r.body)
        if (body.ok !== true) refused.set(body.error, (refused.get(body.error) ?? 0) + 1)
      }
    }
  }
  const clientsStarted = performance.now()
  const clients = Array.from({ length: CLIENTS }, (_, n) => client(n + 1))

  log(`${CLIENTS} clients and ${TAILS} tails running; starting the flood: ${FLOODERS} x ${PER} lines`)
  const t0 = performance.now()
  await Promise.all(
    flooders.map((f) => request("POST", `/api/daemons/${encodeURIComponent(qualified(f))}/start`)),
  )
  // the flood is over when every flooder exited and every tail has its last line (or 60 s more)
  const flooded = async () => {
    const all = JSON.parse((await request("GET", "/api/daemons")).body)
    return flooders.every((f) => {
      const e = all.find((x) => x.id.qualified === qualified(f))
      return e !== undefined && e.status.type !== "running" && e.status.type !== "starting"
    })
  }
  while (!(await flooded())) await new Promise((r) => setTimeout(r, 200))
  const floodSeconds = (performance.now() - t0) / 1000
  log(`flood exited after ${floodSeconds.toFixed(1)} s; waiting for the tails`)
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline && tails.some((t) => t.numbers.at(-1) !== PER))
    await new Promise((r) => setTimeout(r, 200))
  const tailSeconds = (performance.now() - t0) / 1000
  while (performance.now() - clientsStarted < SECONDS * 1000) await new Promise((r) => setTimeout(r, 200))
  running = false
  await Promise.all(clients)
  clearInterval(sampler)
  const hwm = kib(status(), "VmHWM")
  for (const t of tails) t.stop()

  // the stored logs
  const stored = flooders.map((f) => {
    const lines = JSON.parse(cli("logs", f, "--json", "-n", String(PER + 100)))
    return { daemon: f, ...checkSequence(lines.map((l) => Number(l.message))) }
  })
  const tailChecks = tails.map((t) => ({ kind: t.kind, daemon: t.daemon, ...checkSequence(t.numbers) }))

  const round = (x) => Math.round(x * 10) / 10
  console.log(
    `\n${new Date().toISOString()}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${os.loadavg()[0].toFixed(2)}, node ${process.version}`,
  )
  console.log(
    `${DAEMONS} daemons (${FLOODERS} flooders x ${PER} lines), ${CLIENTS} API clients, ${TAILS} tails; flood stored in ${round(floodSeconds)} s, tails caught up at ${round(tailSeconds)} s\n`,
  )
  console.log("| request | count | p50 ms | p99 ms | max ms |")
  console.log("|---|---|---|---|---|")
  for (const [op, xs] of Object.entries(latencies))
    console.log(
      `| ${op} | ${xs.length} | ${round(quantile(xs, 0.5))} | ${round(quantile(xs, 0.99))} | ${round(Math.max(...xs))} |`,
    )
  console.log(`\nfailed requests: ${failures.length}`)
  for (const [why, n] of refused)
    console.log(`answered ok: false: ${n} x ${why.replace(/load\/d\d+/, "<daemon>")}`)
  for (const f of failures.slice(0, 5)) console.log(`  ${JSON.stringify(f)}`)
  const peak = Math.max(...rss)
  console.log(
    `supervisor RSS: ${round(rssBefore / 1024)} MiB before, peak ${round(peak / 1024)} MiB (sampled), VmHWM ${round(hwm / 1024)} MiB`,
  )
  const bad = (xs) => xs.filter((x) => x.missing > 0 || x.outOfOrder > 0 || x.count !== PER)
  console.log(
    `stored logs: ${stored.length} daemons, ${stored.reduce((a, x) => a + x.count, 0)} lines checked, ${bad(stored).length} with a line lost, duplicated or out of order`,
  )
  console.log(
    `tails: ${tailChecks.length} (${tailChecks.filter((t) => t.kind === "CLI").length} CLI, ${tailChecks.filter((t) => t.kind === "API").length} API), ${tailChecks.reduce((a, x) => a + x.count, 0)} lines checked, ${bad(tailChecks).length} with a line lost, duplicated or out of order`,
  )
  for (const x of [...bad(stored), ...bad(tailChecks)]) console.log(`  ${JSON.stringify(x)}`)
  if (jsonOut !== undefined)
    writeFileSync(
      jsonOut,
      JSON.stringify({ latencies, failures, rss, hwm, stored, tails: tailChecks, floodSeconds }, null, 2),
    )
  if (failures.length > 0 || bad(stored).length > 0 || bad(tailChecks).length > 0) process.exitCode = 1
}

main()
  .catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
  .finally(() => {
    agent.destroy()
    cleanup()
  })
