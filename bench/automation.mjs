// What watching and limits cost the supervisor, and how fast a watched file restarts a daemon.
// Usage: node bench/automation.mjs [--daemons 50] [--idle-seconds 60] [--writes 20] [--gap 1000]
//          [--only supervisor,pm2] [--no-install] [--health 5s] [--plain] [--settle 3] [--background 0]
// (build first: npm run build)
//
// 1. Idle CPU: `--daemons` daemons (`exec sleep 3600`), each with `watch = ["src/<name>/*.js"]`,
//    `memory_limit` and `cpu_limit`, started with `start --all`; the supervisor's CPU time
//    (utime + stime of /proc/<pid>/stat, 10 ms ticks; its spawn helper's apart) over
//    `--idle-seconds` with nothing happening, as a percentage of one core (target: under 1%).
// 2. Write to restart: a daemon `node app.js` with `watch = ["app.js"]`; app.js appends
//    `<pid> <Date.now()>` to a file outside its directory as soon as it runs. `app.js` is
//    rewritten `--writes` times; the latency of one write is the new process's timestamp minus
//    the time of the write (target: the debounce, 1 s, + 150 ms, median). After each new start
//    the bench waits `--gap` ms, then checks that the write gave exactly one restart. The same
//    with `pm2 start app.js --watch` (PM2 watches the app's directory; its own delay applies).
//    `--health 5s` gives each daemon a health check (docs/health.md) every 5 s: an http check of
//    one small HTTP server the bench starts (outside the supervisor), so that 200 daemons cost one
//    server; `--plain` leaves out watch and the limits, so that two runs, with and without
//    `--health`, differ by the health checks only. `--writes 0` skips part 2. `--settle` is the
//    pause in seconds between the start and the idle window (default 3): V8's memory reducer
//    runs three full collections some 8-12 s after a start of 200 daemons (~250 ms of CPU), so
//    `--settle 20` measures the idle state without the start's after-effects. `--background N`
//    starts N busy processes first (bench/busy.mjs), for a machine as busy as a developer's.
//
// Everything runs in a temp dir with its own HOME, SUPERVISOR_STATE_DIR and PM2_HOME; every
// process started here is stopped at the end, also on error or Ctrl-C. PM2 is installed on first
// use into a cache dir outside the repository ($SUPERVISOR_BENCH_CACHE, default
// <tmpdir>/supervisor-bench) with `npm install --prefix <cache>/pm2 pm2@latest`.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { busyMode, busyProcesses } from "./busy.mjs"
import { cpuMs } from "./proc.mjs"
import { BENCH_CACHE, PM2_BIN } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = {
  daemons: "50",
  "idle-seconds": "60",
  writes: "20",
  gap: "1000",
  only: "supervisor,pm2",
  health: "",
  settle: "3",
  background: "0",
}
let install = true
let plain = false
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--no-install") {
    install = false
    continue
  }
  if (args[i] === "--plain") {
    plain = true
    continue
  }
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const N = Number(options.daemons)
const IDLE = Number(options["idle-seconds"])
const WRITES = Number(options.writes)
const GAP = Number(options.gap)
const ONLY = options.only.split(",")
const HEALTH = options.health
const SETTLE = Number(options.settle)
const BIN = resolve(import.meta.dirname, "../dist/supervisor.cjs")
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`)
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 23)}]`, ...a)

const root = mkdtempSync(join(tmpdir(), "sv-automation-bench-"))
const home = join(root, "home")
mkdirSync(home)
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(SUPERVISOR_|XDG_|PM2_)/.test(k) && k !== "NO_COLOR"),
)
Object.assign(baseEnv, { HOME: home, NO_COLOR: "1" })
const svEnv = {
  ...baseEnv,
  SUPERVISOR_STATE_DIR: join(root, "state"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
  SUPERVISOR_CONFIG_DIR: join(root, "config"),
}
const pm2Env = { ...baseEnv, PM2_HOME: join(root, "pm2-home") }

const run = (cmd, argv, cwd, env, what) => {
  const r = spawnSync(cmd, argv, { cwd, env, encoding: "utf8", timeout: 120_000, killSignal: "SIGKILL" })
  if (r.status !== 0)
    throw new Error(`${what ?? argv.join(" ")}: ${r.error?.message ?? (r.stderr || r.stdout).trim()}`)
  return r.stdout
}
const sv = (cwd, ...argv) => run(process.execPath, [BIN, ...argv], cwd, svEnv, `supervisor ${argv.join(" ")}`)
const pm2 = (...argv) =>
  run(process.execPath, [PM2_BIN, ...argv], join(root, "pm2"), pm2Env, `pm2 ${argv.join(" ")}`)

/** Children of `pid` named one of `comms` (the supervisor's spawn helper: `spawn-helper` or `perl`). */
const childrenNamed = (pid, ...comms) =>
  readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, "utf8")
        const close = stat.lastIndexOf(")")
        return (
          comms.includes(stat.slice(stat.indexOf("(") + 1, close)) &&
          Number(stat.slice(close + 2).split(" ")[1]) === pid
        )
      } catch {
        return false
      }
    })
    .map(Number)

/** Processes started here, killed at the end if still there: pid -> part of its command line. */
const tracked = new Map()
const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
  } catch {
    return ""
  }
}
let svStarted = false
let pm2Started = false
let cleaned = false
const busy = busyProcesses(Number(options.background))
const cleanup = () => {
  if (cleaned) return
  cleaned = true
  busy.stop()
  if (svStarted) {
    try {
      sv(root, "supervisor", "stop")
    } catch (e) {
      log(`supervisor supervisor stop: ${e.message}`)
    }
  }
  if (pm2Started) {
    try {
      pm2("kill")
    } catch (e) {
      log(`pm2 kill: ${e.message}`)
    }
  }
  for (const [pid, expect] of tracked)
    if (cmdline(pid).includes(expect)) {
      log(`killing leftover ${pid} (${cmdline(pid)})`)
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
    }
  rmSync(root, { recursive: true, force: true, maxRetries: 3 })
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(sig, () => {
    log(`${sig}: stopping`)
    cleanup()
    process.exit(130)
  })

// ---------------------------------------------------------------------------- write to restart
const APP = (startedFile, n) =>
  `require("node:fs").appendFileSync(${JSON.stringify(startedFile)}, process.pid + " " + Date.now() + "\\n")\n` +
  `setInterval(() => {}, 1 << 30) // write ${n}\n`
const starts = (file) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ").map(Number))
    : []
const waitFor = async (cond, ms, what) => {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`)
    await sleep(2)
  }
}
/** Rewrites app.js `WRITES` times; the latency of each write to the new process's first line. */
const latencies = async (name, dir, startedFile) => {
  const out = []
  let extra = 0
  for (let i = 1; i <= WRITES; i++) {
    const before = starts(startedFile).length
    const t0 = Date.now()
    writeFileSync(join(dir, "app.js"), APP(startedFile, i))
    await waitFor(() => starts(startedFile).length > before, 30_000, `${name}: restart after write ${i}`)
    out.push(starts(startedFile)[before][1] - t0)
    const pid = starts(startedFile)[before][0]
    tracked.set(pid, "app.js")
    await sleep(GAP)
    extra += starts(startedFile).length - before - 1
  }
  return { out, extra }
}
const quantile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const summary = (xs) =>
  `median ${quantile(xs, 0.5)} ms, p90 ${quantile(xs, 0.9)} ms, min ${Math.min(...xs)} ms, max ${Math.max(...xs)} ms`

const main = async () => {
  log(`load average at start: ${load()}`)
  // ------------------------------------------------------------------ supervisor: idle CPU
  const project = join(root, "fifty")
  const names = Array.from({ length: N }, (_, i) => `d${String(i + 1).padStart(2, "0")}`)
  for (const n of names) {
    mkdirSync(join(project, "src", n), { recursive: true })
    writeFileSync(join(project, "src", n, "index.js"), "// watched\n")
  }
  let healthUrl
  if (HEALTH !== "") {
    // one server answers every daemon's health check
    const server = spawn(
      process.execPath,
      [
        "-e",
        'const s=require("node:http").createServer((q,r)=>r.end("ok")).listen(0,"127.0.0.1",()=>console.log(s.address().port))',
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    tracked.set(server.pid, "createServer")
    const port = await new Promise((res) => server.stdout.once("data", (d) => res(Number(String(d).trim()))))
    healthUrl = `http://127.0.0.1:${port}/health`
  }
  writeFileSync(
    join(project, "supervisor.toml"),
    names
      .map(
        (n) =>
          `[daemons.${n}]\nrun = "exec sleep 3600"\nready_delay = 0\n` +
          (plain ? "" : `watch = ["src/${n}/*.js"]\nmemory_limit = "1GB"\ncpu_limit = 90\n`) +
          (healthUrl === undefined ? "" : `health = { http = "${healthUrl}", interval = "${HEALTH}" }\n`),
      )
      .join("\n"),
  )
  const results = {}
  if (ONLY.includes("supervisor")) {
    svStarted = true
    sv(project, "supervisor", "start")
    const pid = JSON.parse(sv(project, "supervisor", "status", "--json")).pid
    tracked.set(pid, "supervisor")
    sv(project, "start", "--all", "--quiet")
    const list = JSON.parse(sv(project, "list", "--json")).filter((d) => d.id.namespace === "fifty")
    for (const d of list) if (d.pid) tracked.set(d.pid, "sleep 3600")
    const running = list.filter((d) => d.status.type === "running")
    if (running.length !== N) throw new Error(`${running.length} of ${N} daemons run`)
    await sleep(SETTLE * 1000) // the start's work and the watchers' setup settle
    const helpers = childrenNamed(pid, "spawn-helper", "perl")
    const before = cpuMs(pid)
    const helperBefore = helpers.reduce((s, p) => s + cpuMs(p), 0)
    log(`supervisor pid ${pid}: ${N} daemons run; idle for ${IDLE} s`)
    await sleep(IDLE * 1000)
    const ms = cpuMs(pid) - before
    const helperMs = helpers.reduce((s, p) => s + cpuMs(p), 0) - helperBefore
    const after = JSON.parse(sv(project, "list", "--json")).filter(
      (d) => d.id.namespace === "fifty" && d.status.type === "running",
    )
    if (after.length !== N) throw new Error(`${N - after.length} daemons stopped running while idle`)
    results.idle = { ms, helperMs, load: load() }
    const what = [
      ...(plain ? [] : ["watch, memory_limit and cpu_limit"]),
      ...(healthUrl === undefined ? [] : [`a health check (http) every ${HEALTH}`]),
    ]
    console.log(
      `idle: ${N} daemons${what.length === 0 ? "" : ` with ${what.join(" and ")}`}, ${SETTLE} s after the start; supervisor CPU ${ms} ms over ${IDLE} s = ` +
        `${((ms / (IDLE * 1000)) * 100).toFixed(3)}% of one core${plain ? "" : " (target: under 1%)"}; ` +
        `spawn helper ${helperMs} ms; load ${load()}`,
    )

    // ------------------------------------------------------------------ supervisor: latency
    if (WRITES === 0) {
      console.log(
        `${cpus().length} cores, node ${process.version}, load ${load()}, ${options.background} busy background process(es) (${busyMode})`,
      )
      return
    }
    const dir = join(root, "latency")
    mkdirSync(dir)
    const startedFile = join(root, "latency-started")
    writeFileSync(join(dir, "app.js"), APP(startedFile, 0))
    writeFileSync(
      join(dir, "supervisor.toml"),
      `[daemons.app]\nrun = "exec node app.js"\nready_delay = 0\nwatch = ["app.js"]\n`,
    )
    sv(dir, "start", "app", "--quiet")
    await waitFor(() => starts(startedFile).length > 0, 10_000, "supervisor: first start of app")
    tracked.set(starts(startedFile)[0][0], "app.js")
    await sleep(1000)
    results.supervisor = await latencies("supervisor", dir, startedFile)
  }

  // ------------------------------------------------------------------ PM2: latency
  if (ONLY.includes("pm2")) {
    let why
    if (!existsSync(PM2_BIN) && install) {
      log(`installing PM2: npm install --prefix ${join(BENCH_CACHE, "pm2")} pm2@latest`)
      spawnSync(
        "npm",
        ["install", "--no-audit", "--no-fund", "--prefix", join(BENCH_CACHE, "pm2"), "pm2@latest"],
        {
          stdio: ["ignore", "ignore", "inherit"],
          timeout: 300_000,
        },
      )
    }
    if (!existsSync(PM2_BIN))
      why = install
        ? `npm install --prefix ${join(BENCH_CACHE, "pm2")} pm2@latest failed`
        : `not installed (--no-install)`
    if (why) console.log(`skipped pm2: ${why}`)
    else {
      const dir = join(root, "pm2")
      mkdirSync(dir)
      const startedFile = join(root, "pm2-started")
      writeFileSync(join(dir, "app.js"), APP(startedFile, 0))
      pm2Started = true
      results.pm2Version = pm2("--version").trim().split("\n").pop()
      pm2("ping")
      tracked.set(Number(readFileSync(join(root, "pm2-home", "pm2.pid"), "utf8")), "PM2")
      pm2("start", join(dir, "app.js"), "--name", "app", "--watch")
      await waitFor(() => starts(startedFile).length > 0, 10_000, "pm2: first start of app")
      tracked.set(starts(startedFile)[0][0], "app.js")
      await sleep(1000)
      results.pm2 = await latencies("pm2", dir, startedFile)
    }
  }

  console.log(
    `write to restart, ${WRITES} writes of app.js, ${GAP} ms after each new start ` +
      `(supervisor debounce 1 s: target ≤ 1150 ms median):`,
  )
  for (const [name, r] of [
    ["supervisor", results.supervisor],
    [`pm2 ${results.pm2Version ?? ""}`.trim(), results.pm2],
  ])
    if (r) console.log(`  ${name}: ${summary(r.out)}; extra restarts: ${r.extra}`)
  console.log(
    `${cpus().length} cores, node ${process.version}, load ${load()}, ${options.background} busy background process(es) (${busyMode})`,
  )
}

try {
  await main()
} finally {
  cleanup()
}
