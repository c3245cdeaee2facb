// What parsing costs a json daemon's follower: 1,000,000 JSON log lines, cut in 64 KiB chunks as
// the follower reads them, turned into their fields lines (src/logs/structured/fieldsFile.ts),
// against JSON.parse of each line alone. Usage: node bench/structured-parse.mjs [--rounds 5]
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildSync } from "esbuild"

const i = process.argv.indexOf("--rounds")
const ROUNDS = i < 0 ? 5 : Number(process.argv[i + 1])
const dir = mkdtempSync(join(tmpdir(), "sv-parse-"))
try {
  const out = join(dir, "fields.cjs")
  buildSync({
    entryPoints: ["src/logs/structured/fieldsFile.ts"],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: out,
    logLevel: "error",
  })
  const { fieldsText } = createRequire(import.meta.url)(out)
  const lines = Array.from(
    { length: 1_000_000 },
    (_, n) => `{"level":"${n % 10 === 9 ? "error" : "info"}","n":${n + 1}}`,
  )
  const all = Buffer.from(`${lines.join("\n")}\n`)
  const now = () => Number(process.hrtime.bigint()) / 1e6
  for (let r = 1; r <= ROUNDS; r++) {
    let t = now()
    let count = 0
    for (let off = 0; off < all.length; ) {
      const chunk = all.subarray(off, Math.min(all.length, off + 65536))
      const end = chunk.lastIndexOf(10) + 1
      count += fieldsText("json", chunk, 0, end, 65536).count
      off += end
    }
    const fields = now() - t
    t = now()
    for (const line of lines) JSON.parse(line)
    console.log(
      `round ${r}: fields lines of ${count} entries ${fields.toFixed(0)} ms; JSON.parse per line ${(now() - t).toFixed(0)} ms`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
