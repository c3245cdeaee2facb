// Builds a C program of src/ into dist/ with the machine's C compiler (`cc`, or `$CC`): static where
// the C library allows it (it then runs on any Linux of this architecture), else linked as usual.
// `compiler` and `linkings` say otherwise (a C++ addon: `c++`, shared only). Returns what was
// built, or why nothing was (no compiler, one that fails, not Linux): the program's callers then
// do without it.
import { spawnSync } from "node:child_process"
import { rmSync, statSync } from "node:fs"

export const buildCProgram = (
  source,
  out,
  { flags = [], libs = [], without, compiler: cc = process.env.CC || "cc", linkings = [["-static"], []] },
) => {
  rmSync(out, { force: true })
  if (process.platform !== "linux") return "not built (not Linux)"
  // `source` may be several files; `libs` are linked after them
  const all = ["-O2", "-Wall", "-Wextra", ...flags, "-o", out, ...[source].flat(), ...libs]
  let last
  for (const extra of linkings) {
    const r = spawnSync(cc, [...extra, ...all], { encoding: "utf8" })
    if (r.error?.code === "ENOENT") return `not built (no compiler: ${cc}); ${without}`
    if (r.status === 0)
      return `${(statSync(out).size / 1024).toFixed(0)} KiB${extra.includes("-static") ? ", static" : ""}`
    last = r.stderr || String(r.error)
  }
  // a compiler without the C library's headers, say
  rmSync(out, { force: true })
  return `not built (${cc} failed; ${without}):\n${last}`
}
