// The usage-spec tools on a spec of mise's size (the large real-world case of docs/usage-spec.md).
// Usage: node bench/usage.mjs [runs]   (build first: npm run build)
// Generates the spec with the test suite's generator (test/usage/conformance/largeSpec.ts,
// compiled on the fly with esbuild), then runs every `supervisor spec` command on it `runs`
// times (default 10) after one warm-up, interleaved so that machine noise hits every command
// alike. Prints wall time per command (median, max, in ms), the target (1.5 s each) and the
// machine's load average before and after.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { buildSync } from "esbuild"

const runs = Number(process.argv[2] ?? 10)
const bin = resolve("dist/supervisor.cjs")
const TARGET_MS = 1500

const { outputFiles } = buildSync({
  entryPoints: [resolve("test/usage/conformance/largeSpec.ts")],
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
})
const { largeSpec } = await import(`data:text/javascript,${encodeURIComponent(outputFiles[0].text)}`)
const spec = largeSpec()
const dir = mkdtempSync(join(tmpdir(), "sv-usage-bench-"))
for (const [name, text] of Object.entries(spec.files)) writeFileSync(join(dir, name), text)
const size = Object.values(spec.files).reduce((n, t) => n + Buffer.byteLength(t), 0)

const commands = [
  ["check"],
  ["docs"],
  ["docs", "--format", "man"],
  ["complete", "--shell", "bash"],
  ["complete", "--shell", "zsh"],
  ["complete", "--shell", "fish"],
  ["resolve", "--json"],
  ["describe"],
  ["fmt"],
].map((words) => [...words, spec.main])

const time = (args) => {
  const t = process.hrtime.bigint()
  const r = spawnSync(process.execPath, [bin, "spec", ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  })
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (r.status !== 0) throw new Error(`spec ${args.join(" ")} failed: ${r.stderr}`)
  return ms
}

const loadBefore = loadavg()
const samples = commands.map(() => [])
try {
  for (let i = 0; i < runs + 1; i++) {
    commands.forEach((args, j) => {
      const ms = time(args)
      if (i >= 1) samples[j].push(ms)
    })
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
const loadAfter = loadavg()

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const load = (l) => l.map((x) => x.toFixed(2)).join(" ")
console.log(
  `spec: ${(size / 1024).toFixed(0)} KiB in ${Object.keys(spec.files).length} files, ${spec.commands} commands; ${runs} runs each`,
)
console.log(`load average before: ${load(loadBefore)}; after: ${load(loadAfter)}`)
console.log("| command | median ms | max ms | under 1.5 s |")
console.log("|---|---|---|---|")
let slow = 0
commands.forEach((args, j) => {
  const max = Math.max(...samples[j])
  if (max >= TARGET_MS) slow++
  const name = `supervisor spec ${args.slice(0, -1).join(" ")}`
  console.log(
    `| \`${name}\` | ${q(samples[j], 0.5).toFixed(0)} | ${max.toFixed(0)} | ${max < TARGET_MS ? "yes" : "no"} |`,
  )
})
process.exitCode = slow === 0 ? 0 : 1
