// Builds dist/spawn-helper from src/process/spawnHelper.c with the machine's C compiler (`cc`, or
// `$CC`): static where the C library allows it (it then runs on any Linux of this architecture),
// else linked as usual. No compiler (or one that fails), or not Linux: nothing is built, and the
// supervisor uses its Perl helper (src/process/spawnHelper.ts). The tests require it built.
import { spawnSync } from "node:child_process"
import { rmSync, statSync } from "node:fs"

const SOURCE = "src/process/spawnHelper.c"
const OUT = "dist/spawn-helper"

export const buildSpawnHelper = () => {
  rmSync(OUT, { force: true })
  if (process.platform !== "linux") return "not built (not Linux)"
  const cc = process.env.CC || "cc"
  const flags = ["-O2", "-Wall", "-Wextra", "-o", OUT, SOURCE]
  let last
  for (const extra of [["-static"], []]) {
    const r = spawnSync(cc, [...extra, ...flags], { encoding: "utf8" })
    if (r.error?.code === "ENOENT")
      return `not built (no C compiler: ${cc}); the supervisor uses its Perl helper`
    if (r.status === 0)
      return `${(statSync(OUT).size / 1024).toFixed(0)} KiB${extra.length > 0 ? ", static" : ""}`
    last = r.stderr || String(r.error)
  }
  // a compiler without the C library's headers, say: the Perl helper does the work
  rmSync(OUT, { force: true })
  return `not built (${cc} failed; the supervisor uses its Perl helper):\n${last}`
}
