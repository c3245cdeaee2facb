// Builds dist/memory-relief.node from src/host/memoryRelief.cc with the machine's C++ compiler
// (`c++`, or `$CXX`) against the headers of the `node` running the build (<prefix>/include/node).
// No compiler, no headers, or not Linux: nothing is built, and the supervisor's collection at rest
// is a plain `gc()` (src/host/memoryRelief.ts). The tests require it built.
import { spawnSync } from "node:child_process"
import { existsSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"

const SOURCE = "src/host/memoryRelief.cc"
const OUT = "dist/memory-relief.node"

/**
 * Node's headers: npm's `nodedir` (where npm builds addons), else next to the `node` binary, as
 * Node's release archives and Debian's nodejs-dev lay them out.
 */
const nodeHeaders = () =>
  [process.env.npm_config_nodedir, join(dirname(process.execPath), ".."), "/usr"]
    .filter((dir) => dir !== undefined && dir !== "")
    .map((dir) => join(dir, "include", "node"))
    .find((dir) => existsSync(join(dir, "node_api.h")))

export const buildMemoryRelief = () => {
  rmSync(OUT, { force: true })
  if (process.platform !== "linux") return "not built (not Linux)"
  const headers = nodeHeaders()
  if (headers === undefined)
    return "not built (no Node headers: node_api.h); the supervisor collects at rest with gc()"
  const cxx = process.env.CXX || "c++"
  const r = spawnSync(
    cxx,
    ["-O2", "-Wall", "-Wextra", "-std=c++17", "-fPIC", "-shared", "-fno-exceptions", "-fno-rtti"].concat([
      "-I",
      headers,
      "-o",
      OUT,
      SOURCE,
    ]),
    { encoding: "utf8" },
  )
  if (r.error?.code === "ENOENT")
    return `not built (no C++ compiler: ${cxx}); the supervisor collects at rest with gc()`
  if (r.status === 0) return `${(statSync(OUT).size / 1024).toFixed(0)} KiB`
  rmSync(OUT, { force: true })
  return `not built (${cxx} failed; the supervisor collects at rest with gc()):\n${r.stderr || String(r.error)}`
}
