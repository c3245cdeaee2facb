// Builds dist/memory-relief.node from src/host/memoryRelief.cc with the machine's C++ compiler
// (`c++`, or `$CXX`; scripts/c-program.mjs) against the headers of the `node` running the build.
// No compiler, no headers, or not Linux: nothing is built, and the supervisor's collection at rest
// is a plain `gc()` (src/host/memoryRelief.ts). The tests require it built.
import { existsSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { buildCProgram } from "./c-program.mjs"

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
  const without = "the supervisor collects at rest with gc()"
  const out = "dist/memory-relief.node"
  const headers = nodeHeaders()
  if (headers === undefined) {
    rmSync(out, { force: true })
    return `not built (no Node headers: node_api.h); ${without}`
  }
  return buildCProgram("src/host/memoryRelief.cc", out, {
    compiler: process.env.CXX || "c++",
    linkings: [["-shared", "-fPIC"]],
    flags: ["-std=c++17", "-fno-exceptions", "-fno-rtti", "-I", headers],
    without,
  })
}
