// Writes the generated schema files, from the same effect/Schema definitions the code uses:
// - schemas/supervisor.schema.json: the built CLI's `supervisor schema`;
// - schemas/openapi.json: the HttpApi definition (src/api/openapi.ts), bundled on the fly;
// - docs/settings.md: its settings table, from the settings Schema (src/config/settingsDoc.ts).
// With --check, fails when a committed file is stale instead of writing it.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildSync } from "esbuild"

/** Bundles `entry` on the fly and gives `use` its exports. */
const withModule = (entry, use) => {
  const dir = mkdtempSync(join(tmpdir(), "supervisor-gen-"))
  try {
    const out = join(dir, "module.cjs")
    buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: out,
      logLevel: "error",
    })
    return use(createRequire(import.meta.url)(out))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const openApi = () =>
  withModule("src/api/openapi.ts", (m) => `${JSON.stringify(m.openApiDocument(), null, 2)}\n`)
const settingsDoc = () =>
  withModule("src/config/settingsDoc.ts", (m) =>
    m.withSettingsTable(readFileSync("docs/settings.md", "utf8")),
  )

const outputs = [
  {
    file: "schemas/supervisor.schema.json",
    make: () => execFileSync(process.execPath, ["dist/supervisor.cjs", "schema"], { encoding: "utf8" }),
  },
  { file: "schemas/openapi.json", make: openApi },
  { file: "docs/settings.md", make: settingsDoc },
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
