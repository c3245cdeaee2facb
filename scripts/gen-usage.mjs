// Writes the files generated from the CLI's own usage spec (`supervisor usage`, itself generated
// from the @effect/cli command tree and src/cli/usageSpec/outputs.ts), through the built CLI:
// - docs/cli/*.md: `spec docs --format markdown`;
// - man/supervisor.1: `spec docs --format man`;
// - schemas/outputs/*.json: the JSON Schema of every output that declares one, named after the
//   command path (`list.json`, `config-show.json`; `logs-jsonl.json` for an output not named json).
// With --check, writes nothing and fails (exit 1), naming each stale, missing or extra file.
// Run `npm run build` first.
import { execFileSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const BIN = "dist/supervisor.cjs"
const cli = (...args) => execFileSync(process.execPath, [BIN, ...args], { encoding: "utf8" })

if (!existsSync(BIN)) {
  console.error(`${BIN} is missing: run \`npm run build\` first`)
  process.exit(1)
}

const tmp = mkdtempSync(join(tmpdir(), "supervisor-usage-"))
/** Generated files: target directory -> (file name -> content). */
const generated = new Map()
/** Directories holding only generated files: a file there the spec no longer produces is removed. */
const owned = new Set(["docs/cli", "schemas/outputs"])
try {
  const spec = join(tmp, "supervisor.kdl")
  writeFileSync(spec, cli("usage"))

  cli("spec", "docs", spec, "--format", "markdown", "--out", join(tmp, "md"))
  generated.set("docs/cli", readDir(join(tmp, "md")))

  cli("spec", "docs", spec, "--format", "man", "--out", join(tmp, "man"))
  generated.set("man", readDir(join(tmp, "man")))

  const resolved = JSON.parse(cli("spec", "resolve", spec, "--json"))
  const schemas = new Map()
  for (const [line, command] of Object.entries(resolved.commands)) {
    const path = line.split(" ").slice(1)
    for (const output of command.outputs) {
      if (output.schema === null) continue
      const base = path.length === 0 ? resolved.bin : path.join("-")
      const name = `${base}${output.name === "json" ? "" : `-${output.name}`}.json`
      schemas.set(name, `${JSON.stringify(JSON.parse(output.schema), null, 2)}\n`)
    }
  }
  generated.set("schemas/outputs", schemas)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}

function readDir(dir) {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]))
}

const check = process.argv.includes("--check")
const problems = []
for (const [dir, files] of generated) {
  const present = owned.has(dir) && existsSync(dir) ? readdirSync(dir) : []
  for (const [name, content] of files) {
    const file = join(dir, name)
    const current = existsSync(file) ? readFileSync(file, "utf8") : undefined
    if (current === content) continue
    if (check) problems.push(`${file} is ${current === undefined ? "missing" : "stale"}`)
    else {
      mkdirSync(dir, { recursive: true })
      writeFileSync(file, content)
      console.log(`wrote ${file}`)
    }
  }
  // A file the spec no longer produces (a removed command) is stale too.
  for (const name of present.filter((n) => !files.has(n))) {
    const file = join(dir, name)
    if (check) problems.push(`${file} is no longer generated`)
    else {
      unlinkSync(file)
      console.log(`removed ${file}`)
    }
  }
}
for (const p of problems) console.error(`${p}: run \`npm run build && node scripts/gen-usage.mjs\``)
process.exit(problems.length > 0 ? 1 : 0)
