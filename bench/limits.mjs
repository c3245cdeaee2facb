// What one limit check costs the supervisor: 50 running daemons (a tree of three processes each)
// with both `memory_limit` and `cpu_limit`, under their limits.
// Usage: node bench/limits.mjs [--daemons 50] [--interval 100ms] [--seconds 20] [--rounds 3]
// Each round runs two foreground supervisors one after the other on a fresh state directory,
// with the same daemons: one that never checks (`SUPERVISOR_GENERAL_INTERVAL=1h`) and one that
// checks every `--interval`. Over `--seconds` with every daemon running, the supervisor's CPU
// time is read before and after: the main thread's (`se.sum_exec_runtime` of /proc/<pid>/sched,
// in ns) and the whole process's (utime + stime of /proc/<pid>/stat, 10 ms ticks). The cost of
// one check is the difference between the two supervisors divided by the checks made.
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { cpuMs } from "./proc.mjs"

const args = process.argv.slice(2)
const options = { daemons: "50", interval: "100ms", seconds: "20", rounds: "3" }
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const N = Number(options.daemons)
const SECONDS = Number(options.seconds)
const intervalMs = (() => {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(options.interval)
  if (!m) throw new Error(`--interval: write e.g. 100ms or 1s`)
  return Number(m[1]) * (m[2] === "s" ? 1000 : 1)
})()
const BIN = resolve(import.meta.dirname, "../dist/supervisor.cjs")

const root = mkdtempSync(join(tmpdir(), "sv-limits-bench-"))
const project = join(root, "fifty")
mkdirSync(project)
writeFileSync(
  join(project, "supervisor.toml"),
  Array.from(
    { length: N },
    (_, i) =>
      `[daemons.d${i + 1}]\nrun = "sleep 3600 & sleep 3600 & wait"\nready_delay = 0\n` +
      `memory_limit = "1GB"\ncpu_limit = 90\n`,
  ).join("\n"),
)

/** Main-thread CPU (ms, from /proc/<pid>/sched) and process CPU (ms, from /proc/<pid>/stat). */
const cpuOf = (pid) => {
  const sched = readFileSync(`/proc/${pid}/sched`, "utf8")
  const main = Number(/se\.sum_exec_runtime\s*:\s*([\d.]+)/.exec(sched)[1])
  const total = cpuMs(pid)
  return { main, total }
}

const cli = (env, ...argv) => {
  const r = spawnSync(process.execPath, [BIN, ...argv], {
    cwd: project,
    env,
    encoding: "utf8",
    timeout: 120_000,
  })
  if (r.status !== 0) throw new Error(`supervisor ${argv.join(" ")}: ${r.stderr || r.stdout}`)
  return r.stdout
}

/** One supervisor with the given interval: its CPU over SECONDS while the N daemons run. */
const measure = async (interval) => {
  const state = join(root, `state-${interval}-${Date.now()}`)
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    SUPERVISOR_STATE_DIR: state,
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
    SUPERVISOR_CONFIG_DIR: join(root, "config"),
    SUPERVISOR_GENERAL_INTERVAL: interval,
  }
  const host = spawn(process.execPath, [BIN, "supervisor", "run"], { cwd: project, env, stdio: "ignore" })
  try {
    for (let i = 0; ; i++) {
      const r = spawnSync(process.execPath, [BIN, "supervisor", "status", "--json"], {
        env,
        encoding: "utf8",
      })
      if (r.status === 0) break
      if (i > 100) throw new Error("the supervisor did not start")
      await sleep(100)
    }
    cli(env, "start", "--all", "--quiet")
    const running = JSON.parse(cli(env, "list", "--json")).filter((d) => d.status.type === "running")
    if (running.length !== N) throw new Error(`${running.length} of ${N} daemons run`)
    await sleep(1000) // the start's work settles
    const before = cpuOf(host.pid)
    await sleep(SECONDS * 1000)
    const after = cpuOf(host.pid)
    const killed = JSON.parse(cli(env, "list", "--json")).filter((d) => d.status.type !== "running")
    if (killed.length > 0) throw new Error(`${killed.length} daemons stopped running`)
    return { main: after.main - before.main, total: after.total - before.total }
  } finally {
    spawnSync(process.execPath, [BIN, "supervisor", "stop"], { env, timeout: 60_000 })
    host.kill("SIGKILL")
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const checks = (SECONDS * 1000) / intervalMs
const perCheck = { main: [], total: [] }
try {
  for (let round = 1; round <= Number(options.rounds); round++) {
    const idle = await measure("1h")
    const busy = await measure(options.interval)
    const main = (busy.main - idle.main) / checks
    const total = (busy.total - idle.total) / checks
    perCheck.main.push(main)
    perCheck.total.push(total)
    console.log(
      `round ${round}: no checks ${idle.main.toFixed(1)} ms main thread (${idle.total} ms process), ` +
        `${checks} checks ${busy.main.toFixed(1)} ms (${busy.total} ms): ` +
        `${main.toFixed(3)} ms main thread, ${total.toFixed(3)} ms process per check`,
    )
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
console.log(
  `${N} daemons (3 processes each), a check every ${options.interval} over ${SECONDS} s, ` +
    `${options.rounds} rounds; ${cpus().length} cores, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
)
console.log(
  `per check, median: ${median(perCheck.main).toFixed(3)} ms main-thread CPU, ` +
    `${median(perCheck.total).toFixed(3)} ms process CPU (target: under 5 ms)`,
)
