// `--background N` of the benchmarks: N processes that each keep a core busy (a shell loop), so
// that a figure is measured on a machine as busy as a developer's with a build running beside it.
import { spawn } from "node:child_process"

/** Starts `n` busy loops; each is killed with the returned `stop` (and never outlives its bench: unref'd). */
export const busyProcesses = (n) => {
  const children = Array.from({ length: n }, () => {
    const child = spawn("sh", ["-c", "while :; do :; done"], { stdio: "ignore" })
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
