// Shared by the benchmarks: the project of N daemons that only sleep.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** Writes `<dir>/supervisor.toml` with daemons d0..d<n-1>, `exec sleep`, ready at once; returns dir. */
export const writeSleepersProject = (dir, n) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, "supervisor.toml"),
    Array.from({ length: n }, (_, i) => `[daemons.d${i}]\nrun = "exec sleep 100000"\nready_delay = 0\n`).join(
      "\n",
    ),
  )
  return dir
}
