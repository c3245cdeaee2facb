// PM2 on the misbehaving daemons of test/faults/misbehave.test.ts, for the side-by-side in
// docs/reliability.md: `node bench/misbehave-pm2.mjs`. Each case runs as a PM2 app (`sh -c`,
// `interpreter: none`), is stopped with `pm2 stop`, and the script reports how long the stop
// took, how many of the app's processes were left afterwards (found by an environment variable
// every process of the case inherits), and what PM2's log file kept. PM2 comes from the bench
// cache ($SUPERVISOR_BENCH_CACHE, default <tmpdir>/supervisor-bench; see bench/daemons.mjs), and
// is not installed here: without it the script says so and exits 0. Everything runs in a temp
// dir with its own PM2_HOME, and every process started is killed at the end.
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PM2_BIN } from "./sandbox.mjs"

if (!existsSync(PM2_BIN)) {
  console.log(`PM2 is not in ${PM2_BIN} (node bench/daemons.mjs installs it): no comparison`)
  process.exit(0)
}
const TEN_MB = 10 * 1024 * 1024
const CASES = {
  deaf: "trap '' TERM; sleep 300 & echo deaf up; while :; do sleep 1; done",
  forker: "i=0; while [ $i -lt 200 ]; do sleep 300 & i=$((i+1)); done; echo forked 200; wait",
  mute: "echo out before close; echo err before close >&2; exec >&- 2>&-; echo lost; exec sleep 300",
  longline: `head -c ${TEN_MB} /dev/zero | tr '\\0' x; exec sleep 300`,
  badutf: "printf 'bad \\377\\376 bytes\\n'; exec sleep 300",
  blink: "sleep 300 & exit 0",
  shifter: "echo before exec; exec sh -c 'echo after exec; exec sleep 300'",
}

const root = mkdtempSync(join(tmpdir(), "sv-pm2-misbehave-"))
const env = { PATH: process.env.PATH, HOME: root, PM2_HOME: join(root, "pm2") }
const pm2 = (args, extra = {}) =>
  spawnSync(process.execPath, [PM2_BIN, ...args], {
    cwd: root,
    env: { ...env, ...extra },
    encoding: "utf8",
    timeout: 120_000,
  })

/** Live processes whose environment has MISBEHAVE_CASE=name. */
const processesOf = (name) =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        if (/^\S+ \(.*\) [ZX]/.test(stat)) return false
        return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`MISBEHAVE_CASE=${name}`)
      } catch {
        return false
      }
    })
    .map(Number)

const sleepMs = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const rows = []
try {
  console.log(`PM2 ${pm2(["--version"]).stdout.trim().split("\n").at(-1)}`)
  for (const [name, run] of Object.entries(CASES)) {
    const r = pm2(["start", "sh", "--name", name, "--interpreter", "none", "--", "-c", run], {
      MISBEHAVE_CASE: name,
    })
    if (r.status !== 0) throw new Error(`pm2 start ${name}: ${r.stderr}`)
    sleepMs(name === "longline" ? 4000 : 2000)
    const info = JSON.parse(pm2(["jlist"]).stdout).find((p) => p.name === name)
    const before = processesOf(name).length
    const t0 = Date.now()
    pm2(["stop", name])
    const stopMs = Date.now() - t0
    sleepMs(500)
    const left = processesOf(name)
    const logDir = join(env.PM2_HOME, "logs")
    const out = readFileSync(join(logDir, `${name}-out.log`))
    const err = readFileSync(join(logDir, `${name}-error.log`))
    rows.push({
      name,
      status: info?.pm2_env?.status,
      restarts: info?.pm2_env?.restart_time,
      processes_before_stop: before,
      stop_ms: stopMs,
      left_after_stop: left.length,
      out_log_bytes: out.length,
      out_log_lines: out
        .toString("latin1")
        .split("\n")
        .filter((l) => l !== "").length,
      err_log_bytes: err.length,
      fffd_in_log: out.includes(Buffer.from("\uFFFD")),
    })
    for (const pid of left)
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
  }
} finally {
  pm2(["kill"])
  for (const name of Object.keys(CASES))
    for (const pid of processesOf(name))
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
  rmSync(root, { recursive: true, force: true })
}
console.table(rows)
