// Where a start of N daemons spends its wall time, from the CLI's spawn to its exit.
// Usage: node bench/start-trace.mjs [--daemons 50] [--rounds 7] [--background 0] [--stop]
// (build first: npm run build). A foreground supervisor (`node <the background supervisor's flags>
// dist/supervisor.cjs supervisor run`, on a copy of dist/ and its own state directory) runs with
// SUPERVISOR_TRACE=1 (src/host/trace.ts): after each burst of work it writes which of its services
// ran, how often, for how long in all, and from when to when. Each round times `start --all
// --quiet` of the N sleepers of bench/project.mjs from the outside and reads the supervisor's
// trace of it: the CLI's start-up is the time until the request arrives, the reply's end the time
// from the answer's last byte to the CLI's exit. Then `stop --all` and `clean`. Medians over the
// rounds (ms; "first" and "last" are the phase's first start and last end after the CLI's spawn).
// `--background N` starts N busy processes first (bench/busy.mjs), as bench/daemons.mjs.
// `--stop`: the same for `stop --all` of the N (started, untimed, before each round).
// `SUPERVISOR_SPAWN_HELPER=0 node bench/start-trace.mjs`: the supervisor forks the daemons itself.

import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { busyMode, busyProcesses } from "./busy.mjs"
import { writeSleepersProject } from "./project.mjs"
import { supervisorEnv, supervisorNodeFlags } from "./sandbox.mjs"

const argv = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`)
  return i < 0 ? fallback : Number(argv[i + 1])
}
const N = opt("daemons", 50)
const ROUNDS = opt("rounds", 7)
const BACKGROUND = opt("background", 0)
const FLAGS = supervisorNodeFlags()
const STOP = argv.includes("--stop")
const COMMAND = STOP ? ["stop", "--all"] : ["start", "--all", "--quiet"]

const root = mkdtempSync(join(tmpdir(), "sv-start-trace-"))
cpSync(resolve("dist"), join(root, "dist"), { recursive: true })
cpSync(resolve("package.json"), join(root, "package.json"))
const bin = join(root, "dist", "supervisor.cjs")
const project = writeSleepersProject(join(root, "project"), N)
const env = {
  PATH: process.env.PATH,
  ...(process.env.SUPERVISOR_SPAWN_HELPER
    ? { SUPERVISOR_SPAWN_HELPER: process.env.SUPERVISOR_SPAWN_HELPER }
    : {}),
  HOME: join(root, "home"),
  SUPERVISOR_STATE_DIR: join(root, "state"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
}
const cli = (...a) => {
  const r = spawnSync(process.execPath, [bin, ...a], { cwd: project, env, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`supervisor ${a.join(" ")}: ${r.stderr}`)
  return r.stdout
}
const busy = busyProcesses(BACKGROUND)
const host = spawn(process.execPath, [...FLAGS, bin, "supervisor", "run"], {
  env: { ...env, ...supervisorEnv(), SUPERVISOR_TRACE: "1" },
  cwd: "/",
  stdio: ["ignore", "ignore", "pipe"],
})
let traces = []
let pending = ""
host.stderr.setEncoding("utf8").on("data", (chunk) => {
  const lines = (pending + chunk).split("\n")
  pending = lines.pop()
  for (const l of lines) if (l.startsWith("trace ")) traces.push(JSON.parse(l.slice(6)))
})
/** The next trace of a burst with a phase named `phase`; the traces before it are dropped. */
const nextTrace = async (phase) => {
  const end = Date.now() + 60_000
  for (;;) {
    const i = traces.findIndex((t) => t.phases.some((p) => p.name === phase))
    if (i >= 0) {
      const t = traces[i]
      traces = traces.slice(i + 1)
      return t
    }
    if (Date.now() > end) throw new Error(`no trace of ${phase} from the supervisor`)
    await sleep(50)
  }
}
const median = (xs) => {
  const s = xs.filter((x) => x !== undefined).sort((a, b) => a - b)
  if (s.length === 0) return undefined
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const fmt = (x) => (x === undefined ? "" : x.toFixed(1))

try {
  const deadline = Date.now() + 30_000
  for (;;) {
    const r = spawnSync(process.execPath, [bin, "supervisor", "status", "--json"], { env, encoding: "utf8" })
    if (r.status === 0 && JSON.parse(r.stdout).running) break
    if (Date.now() > deadline) throw new Error("the supervisor did not start")
    await sleep(100)
  }
  await sleep(1000)
  traces = []
  const rounds = []
  for (let r = 0; r < ROUNDS; r++) {
    if (STOP) {
      cli("start", "--all", "--quiet")
      // the start's burst (its state writes and events) ends before the stop is timed
      await nextTrace("http POST /api/commands")
    }
    const spawned = performance.timeOrigin + performance.now()
    cli(...COMMAND)
    const exited = performance.timeOrigin + performance.now()
    const trace = await nextTrace("http POST /api/commands")
    const phases = Object.fromEntries(
      trace.phases.map((p) => [
        p.name,
        { ...p, first: p.first + trace.at - spawned, last: p.last + trace.at - spawned },
      ]),
    )
    const request = Object.values(phases).find((p) => p.name.startsWith("http POST"))
    rounds.push({ total: exited - spawned, phases, arrive: request?.first, answered: request?.last })
    if (!STOP) cli("stop", "--all")
    cli("clean")
    // the clean's burst (it forgets each daemon's logs) ends before the next start is timed
    await nextTrace("LogStore.forget")
  }
  console.log(
    `${COMMAND.slice(0, 2).join(" ")} of ${N} daemons, ${ROUNDS} rounds, supervisor flags ${FLAGS.join(" ")}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}${BACKGROUND ? `; ${BACKGROUND} busy processes beside it (${busyMode})` : ""}`,
  )
  console.log(
    `wall time, median: ${fmt(median(rounds.map((x) => x.total)))} ms (rounds ${rounds.map((x) => x.total.toFixed(0)).join(", ")})`,
  )
  console.log("| step | count | Σ ms | first ms | last ms |")
  console.log("|---|---:|---:|---:|---:|")
  console.log(
    `| CLI start-up until the request arrives | | | 0 | ${fmt(median(rounds.map((x) => x.arrive)))} |`,
  )
  const names = [...new Set(rounds.flatMap((x) => Object.keys(x.phases)))]
  names.sort(
    (a, b) => median(rounds.map((x) => x.phases[a]?.first)) - median(rounds.map((x) => x.phases[b]?.first)),
  )
  for (const name of names) {
    const m = (f) => fmt(median(rounds.map((x) => (x.phases[name] ? f(x.phases[name]) : undefined))))
    console.log(
      `| ${name} | ${m((p) => p.count)} | ${m((p) => p.sum)} | ${m((p) => p.first)} | ${m((p) => p.last)} |`,
    )
  }
  console.log(
    `| the CLI's exit after the answer | | | ${fmt(median(rounds.map((x) => x.answered)))} | ${fmt(median(rounds.map((x) => x.total)))} |`,
  )
} finally {
  try {
    cli("supervisor", "stop")
  } catch {}
  if (host.exitCode === null) await Promise.race([new Promise((r) => host.once("exit", r)), sleep(20_000)])
  if (host.exitCode === null) host.kill("SIGKILL")
  busy.stop()
  rmSync(root, { recursive: true, force: true })
}
