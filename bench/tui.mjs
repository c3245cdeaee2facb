// What `supervisor tui`'s refresh loop costs: the dashboard on 200 running daemons, in tmux.
// Usage: node bench/tui.mjs [--daemons 200] [--seconds 25] [--interval 1]   (build first)
// Starts a supervisor on a fresh state directory and the daemons (`sleep`), runs the built
// `supervisor tui` in a 160x45 tmux session on a private socket, waits until its table shows
// them all, then reads the CPU time (utime + stime of /proc/<pid>/stat) of the dashboard's
// process (dist/tui.mjs) and of the CLI process that waits for it over `--seconds`, and prints
// it as a percentage of one core.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { cpuMs } from "./proc.mjs"
import { BIN, benchSandbox } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = { daemons: "200", seconds: "25", interval: "1" }
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const N = Number(options.daemons)
const TUI = resolve(import.meta.dirname, "../dist/tui.mjs")
const root = mkdtempSync(join(tmpdir(), "sv-tui-bench-"))
const project = join(root, "many")
mkdirSync(project)
writeFileSync(
  join(project, "supervisor.toml"),
  Array.from(
    { length: N },
    (_, i) => `[daemons.d${String(i + 1).padStart(3, "0")}]\nrun = "exec sleep 3600"\nready_delay = 0\n`,
  ).join("\n"),
)
const { env, cli } = benchSandbox(root, project, { TERM: "xterm-256color" })
const socket = `sv-tui-bench-${process.pid}`
const tmux = (...a) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...a], { encoding: "utf8", env })

/** The pid whose command line has `word` among its arguments. */
const pidOf = (word, also) =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .find((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
        return argv.includes(word) && (also === undefined || argv.includes(also))
      } catch {
        return false
      }
    })

try {
  cli("start", "--all", "--quiet")
  const command = `${process.execPath} ${BIN} tui --interval ${options.interval}`
  tmux("new-session", "-d", "-x", "160", "-y", "45", "-s", "bench", "-c", project, command)
  const deadline = Date.now() + 60_000
  for (;;) {
    const screen = tmux("capture-pane", "-p", "-t", "bench").stdout
    if (screen.includes(`${N} daemons`) && /d001\s+running/.test(screen)) break
    if (Date.now() > deadline) throw new Error(`the dashboard did not show ${N} daemons:\n${screen}`)
    await sleep(200)
  }
  const tuiPid = pidOf(TUI)
  const cliPid = pidOf(BIN, "tui")
  if (tuiPid === undefined || cliPid === undefined)
    throw new Error("the dashboard's processes were not found")
  // what serving the dashboard costs the supervisor: its own CPU over the same window
  const svPid = JSON.parse(cli("supervisor", "status", "--json")).pid
  await sleep(3000) // past the first renders
  const t0 = [cpuMs(tuiPid), cpuMs(cliPid), cpuMs(svPid)]
  const start = Date.now()
  await sleep(Number(options.seconds) * 1000)
  const wall = Date.now() - start
  const [tui, waiting, served] = [cpuMs(tuiPid) - t0[0], cpuMs(cliPid) - t0[1], cpuMs(svPid) - t0[2]]
  const pct = (ms) => ((ms / wall) * 100).toFixed(2)
  const lines = tmux("capture-pane", "-p", "-t", "bench").stdout.split("\n")
  const rows = lines.filter((l) => /^[> ] \S+\/d\d{3}\s/.test(l)).length
  console.log(
    `supervisor tui, ${N} running daemons, refresh every ${options.interval} s, ${(wall / 1000).toFixed(1)} s: dashboard process ${tui} ms CPU = ${pct(tui)}% of one core; waiting CLI process ${waiting} ms = ${pct(waiting)}%; supervisor ${served} ms = ${pct(served)}%; ${rows} table rows drawn in a 45-line terminal`,
  )
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? "unknown CPU"}, node ${process.version}, load average ${loadavg()[0].toFixed(1)}`,
  )
} finally {
  tmux("kill-server")
  try {
    cli("supervisor", "stop")
  } catch {}
  rmSync(root, { recursive: true, force: true })
}
