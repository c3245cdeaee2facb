// `--background N` of the benchmarks: N processes that each keep a core busy (a shell loop), so
// that a figure is measured on a machine as busy as a developer's with a build running beside it.
import { spawn } from "node:child_process"

/**
 * Starts `n` busy loops; each is killed with the returned `stop`, and ends by itself within a few
 * milliseconds of its bench's end however that ends (an uncaught error, a signal, a closed pipe):
 * every 20,000 turns it checks that the bench still runs.
 */
export const busyProcesses = (n) => {
  const loop = `while kill -0 ${process.pid} 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; done`
  const children = Array.from({ length: n }, () => {
    const child = spawn("sh", ["-c", loop], { stdio: "ignore" })
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
