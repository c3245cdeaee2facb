// Writes schemas/supervisor.schema.json from the built CLI (`supervisor schema`),
// which derives it from the effect/Schema definitions. With --check, fails when
// the committed file is stale instead of writing it.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"

const outputs = [{ file: "schemas/supervisor.schema.json", args: ["schema"] }]
const check = process.argv.includes("--check")
let stale = 0
mkdirSync("schemas", { recursive: true })
for (const { file, args } of outputs) {
  const fresh = execFileSync(process.execPath, ["dist/supervisor.cjs", ...args], { encoding: "utf8" })
  const current = existsSync(file) ? readFileSync(file, "utf8") : ""
  if (fresh === current) continue
  if (check) {
    console.error(`${file} is stale: run \`npm run build && npm run schemas\` and commit it`)
    stale++
  } else {
    writeFileSync(file, fresh)
    console.log(`wrote ${file}`)
  }
}
process.exit(stale > 0 ? 1 : 0)
