// What a start of N daemons costs the supervisor, for two builds (or more) side by side.
// Usage: node bench/start-cost.mjs [--daemons 50] [--rounds 11] [--node-flags "<flags>"] [--rest MS]
//          [--rest-running MS] [DIR ...]
//   DIR: a directory holding a build's dist/ and package.json (default: this repository). Copy a
//   build aside (`cp -r dist package.json /tmp/before/`) to compare it with the current one.
//   `DIR::FLAGS` adds Node flags to that build's supervisor only (`. .::--optimize-for-size`
//   compares a flag with the same build).
// Each build gets its own foreground supervisor (`node <flags> dist/supervisor.cjs supervisor run`,
// the flags of a background supervisor by default, read from src/host/nodeFlags.ts) on its own
// state directory, with the same project of N `exec sleep` daemons (`ready_delay = 0`). The
// rounds alternate between the builds: each sends the start request the quick client sends for
// `start --all` (POST /api/cli/start-from over the socket), then stops and forgets the daemons
// with the build's CLI. Per build: the request's wall time and the supervisor's main-thread CPU
// time (`se.sum_exec_runtime` of /proc/<pid>/sched, which machine noise moves far less than the
// wall time), medians over the rounds, and the supervisor's RSS at the end; the same two for the
// `stop --all` that follows (its wall time is the CLI's, start-up included). `--rest-running MS`:
// each start is followed by MS of idleness with the daemons running, then the supervisor's RSS
// with its spawn helper's is read (a column of its own, median over the rounds), then the stop.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { helperPids } from "./proc.mjs"
import { writeSleepersProject } from "./project.mjs"
import { copyBuild, supervisorEnv, supervisorNodeFlags } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = { daemons: 50, rounds: 11, "node-flags": undefined, rest: 0, "rest-running": 0 }
const dirs = []
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name !== undefined && name in options) options[name] = args[++i]
  else if (name !== undefined) throw new Error(`unknown option ${args[i]}`)
  else {
    const [dir, extra = ""] = args[i].split("::")
    dirs.push({ dir: resolve(dir), extra: extra.split(/\s+/).filter(Boolean) })
  }
}
if (dirs.length === 0) dirs.push({ dir: resolve("."), extra: [] })
const N = Number(options.daemons)
const ROUNDS = Number(options.rounds)
const flags =
  options["node-flags"] === undefined
    ? supervisorNodeFlags()
    : options["node-flags"].split(/\s+/).filter(Boolean)

const root = mkdtempSync(join(tmpdir(), "sv-start-cost-"))
const project = writeSleepersProject(join(root, "project"), N)

const mainThreadCpuMs = (pid) =>
  Number(/se\.sum_exec_runtime\s+:\s+([\d.]+)/.exec(readFileSync(`/proc/${pid}/sched`, "utf8"))?.[1] ?? NaN)
const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024
/** The supervisor's RSS with its spawn helper's, as bench/daemons.mjs counts it. */
const rssWithHelperMiB = (pid) => [pid, ...helperPids(pid)].reduce((sum, p) => sum + rssMiB(p), 0)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

const post = (socketPath, path, body) =>
  new Promise((resolvePost, reject) => {
    const text = JSON.stringify(body)
    const req = request(
      {
        socketPath,
        path,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        let out = ""
        res.setEncoding("utf8").on("data", (d) => {
          out += d
        })
        res.on("end", () => resolvePost({ status: res.statusCode, body: out }))
      },
    )
    req.on("error", reject)
    req.end(text)
  })

const builds = []
try {
  for (const [i, { dir, extra }] of dirs.entries()) {
    const { copy, bin } = copyBuild(dir, root, `build-${i}`)
    const stateDir = join(root, `state-${i}`)
    const env = { ...process.env, HOME: join(root, "home"), SUPERVISOR_STATE_DIR: stateDir }
    const version = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")).version
    const host = spawn(process.execPath, [...flags, ...extra, bin, "supervisor", "run"], {
      env: { ...env, ...supervisorEnv() },
      stdio: "ignore",
    })
    builds.push({
      dir: [dir, ...extra].join(" "),
      bin,
      env,
      host,
      socket: join(stateDir, "sock", "api.sock"),
      version,
      wall: [],
      cpu: [],
      stopWall: [],
      stopCpu: [],
      restRss: [],
    })
  }
  for (const b of builds) {
    const deadline = Date.now() + 15_000
    while (
      !existsSync(b.socket) ||
      (await post(b.socket, "/api/cli/list", {}).catch(() => undefined)) === undefined
    ) {
      if (Date.now() > deadline) throw new Error(`the supervisor of ${b.dir} did not start`)
      await sleep(100)
    }
  }
  const cli = (b, ...a) => {
    const r = spawnSync(process.execPath, [b.bin, ...a], { cwd: project, env: b.env, encoding: "utf8" })
    if (r.status !== 0) throw new Error(`supervisor ${a.join(" ")}: ${r.stderr}`)
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of builds) {
      const body = {
        version: b.version,
        cwd: project,
        env: b.env,
        ids: [],
        all: true,
        group: null,
        force: false,
        progress: "none",
      }
      const cpu0 = mainThreadCpuMs(b.host.pid)
      const t0 = performance.now()
      const r = await post(b.socket, "/api/cli/start-from", body)
      const wall = performance.now() - t0
      const cpu = mainThreadCpuMs(b.host.pid) - cpu0
      const outcomes = r.body
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.outcomes)?.outcomes
      if (r.status !== 200 || outcomes?.length !== N || outcomes.some((o) => o._tag !== "Ready"))
        throw new Error(
          `${b.dir}: the start did not report ${N} daemons ready: ${r.status} ${r.body.slice(0, 300)}`,
        )
      b.wall.push(wall)
      b.cpu.push(cpu)
      if (Number(options["rest-running"]) > 0) {
        await sleep(Number(options["rest-running"]))
        b.restRss.push(rssWithHelperMiB(b.host.pid))
      }
      const stopCpu0 = mainThreadCpuMs(b.host.pid)
      const stop0 = performance.now()
      cli(b, "stop", "--all")
      b.stopWall.push(performance.now() - stop0)
      b.stopCpu.push(mainThreadCpuMs(b.host.pid) - stopCpu0)
      cli(b, "clean")
      // --rest MS: the supervisor idles that long after each round (its collection at rest runs)
      if (Number(options.rest) > 0) await sleep(Number(options.rest))
    }
  }
  const restRunning = Number(options["rest-running"]) > 0
  console.log(`start of ${N} daemons, ${ROUNDS} rounds, node ${process.version} ${flags.join(" ")}`)
  console.log(
    `| build | wall median ms | wall min-max ms | main-thread CPU median ms | stop: CLI wall median ms | stop: main-thread CPU median ms | RSS at the end MiB |${restRunning ? ` RSS with helper after ${Number(options["rest-running"]) / 1000} s of rest with ${N} running, MiB (median; min-max) |` : ""}`,
  )
  console.log(`|---|---|---|---|---|---|---|${restRunning ? "---|" : ""}`)
  for (const b of builds)
    console.log(
      `| ${b.dir} | ${median(b.wall).toFixed(0)} | ${Math.min(...b.wall).toFixed(0)}-${Math.max(...b.wall).toFixed(0)} | ${median(b.cpu).toFixed(0)} | ${median(b.stopWall).toFixed(0)} | ${median(b.stopCpu).toFixed(0)} | ${rssMiB(b.host.pid).toFixed(1)} |${restRunning ? ` ${median(b.restRss).toFixed(1)} (${Math.min(...b.restRss).toFixed(1)}-${Math.max(...b.restRss).toFixed(1)}) |` : ""}`,
    )
} finally {
  for (const b of builds) b.host.kill("SIGTERM")
  await sleep(1500)
  rmSync(root, { recursive: true, force: true })
}
