// Writes the generated schema files, from the same effect/Schema definitions the code uses:
// - schemas/supervisor.schema.json: the built CLI's `supervisor schema`;
// - schemas/openapi.json: the HttpApi definition (src/api/openapi.ts), bundled on the fly.
// With --check, fails when a committed file is stale instead of writing it.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildSync } from "esbuild"

const openApi = () => {
  const dir = mkdtempSync(join(tmpdir(), "supervisor-openapi-"))
  try {
    const out = join(dir, "openapi.cjs")
    buildSync({
      entryPoints: ["src/api/openapi.ts"],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: out,
      logLevel: "error",
    })
    return `${JSON.stringify(createRequire(import.meta.url)(out).openApiDocument(), null, 2)}\n`
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const outputs = [
  {
    file: "schemas/supervisor.schema.json",
    make: () => execFileSync(process.execPath, ["dist/supervisor.cjs", "schema"], { encoding: "utf8" }),
  },
  { file: "schemas/openapi.json", make: openApi },
]
const check = process.argv.includes("--check")
let stale = 0
mkdirSync("schemas", { recursive: true })
for (const { file, make } of outputs) {
  const fresh = make()
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
