// `--background N` of the benchmarks: N processes that each keep a core busy (a shell loop), so
// that a figure is measured on a machine as busy as a developer's with a build running beside it.
//
// Each loop runs in a session of its own, as a program started from another terminal does. With
// Linux's autogroup scheduling (sched_autogroup_enabled, on by default) CPU time is shared
// between sessions first: loops inside the bench's own session would take their turns from the
// bench's clients alone (the reader whose latency is measured, the CLI whose start-up is timed),
// which no other program on a developer's machine does to them. `BENCH_BUSY_SESSION=bench`
// starts them in the bench's session instead, the harsher condition of the figures before
// 2026-12-04 (docs/benchmarks.md says which figures were measured so).
import { spawn } from "node:child_process"

const inBenchSession = process.env.BENCH_BUSY_SESSION === "bench"

/** How the loops share the machine, for a bench's header line. */
export const busyMode = inBenchSession ? "in the bench's session" : "each in a session of its own"

/**
 * Starts `n` busy loops; each is killed with the returned `stop`, and ends by itself within a few
 * milliseconds of its bench's end however that ends (an uncaught error, a signal, a closed pipe):
 * every 20,000 turns it checks that the bench still runs.
 */
export const busyProcesses = (n) => {
  const loop = `while kill -0 ${process.pid} 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; done`
  const children = Array.from({ length: n }, () => {
    const child = spawn("sh", ["-c", loop], { stdio: "ignore", detached: !inBenchSession })
    child.unref()
    return child
  })
  return {
    pids: children.map((c) => c.pid),
    stop: () => {
      for (const c of children) c.kill("SIGKILL")
    },
  }
}
