// Builds dist/quick, the native quick client (src/quick/native/quick.c), with the package's
// version (scripts/c-program.mjs). Not built: dist/supervisor runs `node` for every command. The
// tests require it built.
import { readFileSync } from "node:fs"
import { buildCProgram } from "./c-program.mjs"

export const buildNativeQuick = () => {
  const { version } = JSON.parse(readFileSync("package.json", "utf8"))
  return buildCProgram("src/quick/native/quick.c", "dist/quick", {
    flags: [`-DSUPERVISOR_VERSION=${JSON.stringify(version)}`],
    without: "dist/supervisor runs node for every command",
  })
}
