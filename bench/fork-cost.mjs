// What spawning costs a Node process, by its resident memory: the floor under the supervisor's
// start of 50 daemons. Usage: node bench/fork-cost.mjs [--daemons 50] [--extra 0,30,100]
// For each amount of extra memory (MiB of touched buffers, on top of a bare `node`), in a fresh
// `node --max-semi-space-size=1 --no-opt` (the supervisor's kind of heap):
//   - spawn: N detached `sh -c "exec sleep 1000"` with their output on a file, as the supervisor
//     spawns daemons, timed around the synchronous `child_process.spawn` calls;
//   - launch: the same plus what a start needs at the least (open the log file, read
//     /proc/<pid>/stat, start an fs.watch), in plain Node: no Effect, no state, no HTTP.
// Every child is killed at the end.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? fallback : args[i + 1]
}
const N = Number(opt("daemons", 50))
const extras = String(opt("extra", "0,30,100")).split(",").map(Number)

const child = `
const { spawn } = require("node:child_process")
const fs = require("node:fs")
const [extra, n, dir] = process.argv.slice(1).map((a, i) => (i < 2 ? Number(a) : a))
const keep = []
for (let i = 0; i < extra; i++) keep.push(Buffer.alloc(1 << 20, 1))
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]) / 1024
const kids = []
const run = (full) => {
  let spawning = 0
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const file = dir + "/d" + i + ".out"
    const fd = fs.openSync(file, "a", 0o640)
    const s = performance.now()
    const c = spawn("sh", ["-c", "exec sleep 1000"], { detached: true, stdio: ["ignore", fd, fd] })
    spawning += performance.now() - s
    fs.closeSync(fd)
    c.unref()
    kids.push(c)
    if (full) {
      fs.readFileSync("/proc/" + c.pid + "/stat", "utf8")
      kids.push(fs.watch(file, () => {}))
    }
  }
  return { spawning, total: performance.now() - t0 }
}
const before = rss()
const spawnOnly = run(false)
const launch = run(true)
for (const k of kids) if (k.pid) process.kill(-k.pid, "SIGKILL"); else k.close()
console.log(JSON.stringify({ rss: before, spawn: spawnOnly.spawning / n, launch: launch.total }))
`

console.log(`| extra MiB | RSS MiB | spawn, ms each | plain-Node launch of ${N}, ms |`)
console.log("|---|---|---|---|")
for (const extra of extras) {
  const dir = mkdtempSync(join(tmpdir(), "sv-fork-cost-"))
  const r = spawnSync(
    process.execPath,
    ["--max-semi-space-size=1", "--no-opt", "-e", child, String(extra), String(N), dir],
    { encoding: "utf8" },
  )
  rmSync(dir, { recursive: true, force: true })
  if (r.status !== 0) throw new Error(r.stderr)
  const m = JSON.parse(r.stdout)
  console.log(`| ${extra} | ${m.rss.toFixed(0)} | ${m.spawn.toFixed(2)} | ${m.launch.toFixed(0)} |`)
}
