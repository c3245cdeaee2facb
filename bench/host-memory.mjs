// Memory of the supervisor process under given Node flags, with 50 daemons.
// Usage: node bench/host-memory.mjs [--daemons 50] [--cycles 3] -- <node flags...>
//   e.g. node bench/host-memory.mjs -- --max-semi-space-size=1 --heap-growing-percent=60 --no-opt
// (build first: npm run build). Runs `node <flags> dist/supervisor.cjs supervisor run` in the
// foreground on a temporary state directory, once to make a code cache under those flags (a
// cache made under other flags is rejected) and once measured: VmRSS when idle, then after each
// cycle of `start --all` (timed), six `list --json`, `stop --all` and `clean`. The dist/ under
// test is copied first, so the build's own code cache is left alone.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { writeSleepersProject } from "./project.mjs"

const args = process.argv.slice(2)
const sep = args.indexOf("--")
const own = sep < 0 ? args : args.slice(0, sep)
const flags = sep < 0 ? [] : args.slice(sep + 1)
const opt = (name, fallback) => {
  const i = own.indexOf(`--${name}`)
  return i < 0 ? fallback : Number(own[i + 1])
}
const N = opt("daemons", 50)
const CYCLES = opt("cycles", 3)

const root = mkdtempSync(join(tmpdir(), "sv-host-memory-"))
const dist = join(root, "dist")
cpSync(resolve("dist"), dist, { recursive: true })
cpSync(resolve("package.json"), join(root, "package.json"))
rmSync(join(dist, "host.cjs.cache"), { force: true })
const project = writeSleepersProject(join(root, "project"), N)
const bin = join(dist, "supervisor.cjs")
const env = { ...process.env, HOME: join(root, "home"), SUPERVISOR_STATE_DIR: join(root, "state") }
const cli = (...a) => {
  const r = spawnSync(process.execPath, [bin, ...a], { cwd: project, env, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`supervisor ${a.join(" ")}: ${r.stderr}`)
  return r.stdout
}
const rssMiB = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return Math.round(Number(m?.[1] ?? 0) / 1024)
}

const life = async (measure) => {
  rmSync(join(root, "state"), { recursive: true, force: true })
  const host = spawn(process.execPath, [...flags, bin, "supervisor", "run"], { env, stdio: "ignore" })
  const deadline = Date.now() + 10_000
  for (;;) {
    const r = spawnSync(process.execPath, [bin, "supervisor", "status", "--json"], { env, encoding: "utf8" })
    if (r.status === 0 && JSON.parse(r.stdout).running) break
    if (Date.now() > deadline) throw new Error("the supervisor did not start")
    await sleep(100)
  }
  const out = { idle: rssMiB(host.pid), cycles: [], start: [] }
  for (let c = 0; c < (measure ? CYCLES : 1); c++) {
    const t = performance.now()
    cli("start", "--all", "--quiet")
    out.start.push(Math.round(performance.now() - t))
    for (let i = 0; i < 6; i++) cli("list", "--json")
    out.cycles.push(rssMiB(host.pid))
    cli("stop", "--all")
    cli("clean")
  }
  cli("supervisor", "stop")
  await new Promise((r) => (host.exitCode === null ? host.once("exit", r) : r()))
  return out
}

try {
  await life(false) // writes dist/host.cjs.cache under these flags when it stops
  const r = await life(true)
  console.log(`flags: ${flags.join(" ") || "(none)"}`)
  console.log(`VmRSS MiB: idle ${r.idle}, after each cycle ${r.cycles.join(", ")}`)
  console.log(`start --all of ${N}, ms: ${r.start.join(", ")}`)
} finally {
  rmSync(root, { recursive: true, force: true })
}
