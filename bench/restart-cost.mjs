// What a restart of one daemon costs the supervisor, for two builds (or more) side by side.
// Usage: node bench/restart-cost.mjs [--daemons 200] [--restarts 200] [--rounds 5] [DIR ...]
//   DIR: a directory holding a build's dist/ and package.json (default: this repository); copy a
//   build aside (`cp -r dist package.json /tmp/before/`) to compare it with the current one.
// Each build gets its own foreground supervisor (the background supervisor's Node flags) on its
// own state directory, with a project of N `exec sleep` daemons, all started. A round restarts
// daemons one at a time as the web page and the dashboard do (`POST /api/commands`, `Restart`
// of one qualified ID, `wait: "none"`), each once the stream of `GET /api/events` has said the
// one before runs again. Per build: the supervisor's CPU time per restart, all its threads
// (`se.sum_exec_runtime` of /proc/<pid>/task/*/sched) and its main thread alone; medians over
// the rounds, which alternate between the builds.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { writeSleepersProject } from "./project.mjs"
import { copyBuild, supervisorEnv, supervisorNodeFlags } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = { daemons: 200, restarts: 200, rounds: 5 }
const dirs = []
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name !== undefined && name in options) options[name] = Number(args[++i])
  else if (name !== undefined) throw new Error(`unknown option ${args[i]}`)
  else dirs.push(resolve(args[i]))
}
if (dirs.length === 0) dirs.push(resolve("."))
const { daemons: N, restarts: RESTARTS, rounds: ROUNDS } = options

const root = mkdtempSync(join(tmpdir(), "sv-restart-cost-"))
const project = writeSleepersProject(join(root, "project"), N)
const namespace = "project"

/** Milliseconds of CPU each thread of `pid` has used: `sum_exec_runtime` by thread id. */
const threadCpuMs = (pid) =>
  Object.fromEntries(
    readdirSync(`/proc/${pid}/task`).map((t) => [
      t,
      Number(
        /se\.sum_exec_runtime\s+:\s+([\d.]+)/.exec(readFileSync(`/proc/${pid}/task/${t}/sched`, "utf8"))[1],
      ),
    ]),
  )
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]

const post = (socketPath, path, body) =>
  new Promise((ok, fail) => {
    const req = request(
      { socketPath, path, method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        let out = ""
        res.setEncoding("utf8").on("data", (d) => {
          out += d
        })
        res.on("end", () =>
          res.statusCode === 200 ? ok(out) : fail(new Error(`${path}: ${res.statusCode} ${out}`)),
        )
      },
    )
    req.on("error", fail)
    req.end(JSON.stringify(body))
  })

/** Follows `GET /api/events`; `next(id)` resolves once `id` is running again. */
const follow = (socketPath) => {
  let waiting
  const req = request(
    { socketPath, path: "/api/events", headers: { accept: "application/x-ndjson" } },
    (res) => {
      let rest = ""
      res.setEncoding("utf8").on("data", (chunk) => {
        const lines = (rest + chunk).split("\n")
        rest = lines.pop()
        for (const line of lines) {
          if (line.trim() === "") continue
          const e = JSON.parse(line)
          if (waiting && e._tag === "DaemonStateChanged" && e.id === waiting.id && e.to === "running") {
            waiting.ok()
            waiting = undefined
          }
        }
      })
    },
  )
  req.end()
  return {
    next: (id) => new Promise((ok) => (waiting = { id, ok })),
    close: () => req.destroy(),
  }
}

const builds = []
try {
  for (const [i, dir] of dirs.entries()) {
    const { bin } = copyBuild(dir, root, `build-${i}`)
    const stateDir = join(root, `state-${i}`)
    const env = {
      PATH: process.env.PATH,
      HOME: join(root, `home-${i}`),
      SUPERVISOR_STATE_DIR: stateDir,
      SUPERVISOR_CONFIG_DIR: join(root, `home-${i}`, ".config", "supervisor"),
      SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
    }
    mkdirSync(env.HOME, { recursive: true })
    const host = spawn(process.execPath, [...supervisorNodeFlags(), bin, "supervisor", "run"], {
      env: { ...env, ...supervisorEnv() },
      stdio: "ignore",
    })
    const cli = (...a) => {
      const r = spawnSync(process.execPath, [bin, ...a], { cwd: project, env, encoding: "utf8" })
      if (r.status !== 0) throw new Error(`supervisor ${a.join(" ")}: ${r.stderr}`)
      return r.stdout
    }
    builds.push({ dir, host, cli, socket: join(stateDir, "sock", "api.sock"), all: [], main: [] })
  }
  for (const b of builds) {
    const deadline = Date.now() + 15_000
    while (!existsSync(b.socket)) {
      if (Date.now() > deadline) throw new Error(`the supervisor of ${b.dir} did not start`)
      await sleep(100)
    }
    b.cli("start", "--all", "--quiet")
  }
  await sleep(3000) // past the start's after-effects
  for (let round = 0; round < ROUNDS; round++) {
    for (const b of builds) {
      const stream = follow(b.socket)
      await sleep(300)
      const before = threadCpuMs(b.host.pid)
      for (let i = 0; i < RESTARTS; i++) {
        const id = `${namespace}/d${i % N}`
        const running = stream.next(id)
        await post(b.socket, "/api/commands", {
          _tag: "Restart",
          selection: { ids: [id] },
          wait: "none",
          reason: "api",
        })
        await running
      }
      const after = threadCpuMs(b.host.pid)
      stream.close()
      let all = 0
      for (const [t, ms] of Object.entries(after)) all += ms - (before[t] ?? 0)
      b.all.push(all / RESTARTS)
      b.main.push((after[String(b.host.pid)] - before[String(b.host.pid)]) / RESTARTS)
      await sleep(1000)
    }
  }
  console.log(`${RESTARTS} restarts of one daemon among ${N}, ${ROUNDS} rounds, node ${process.version}`)
  console.log("| build | CPU ms per restart, all threads: median (rounds) | main thread: median |")
  console.log("|---|---|---|")
  for (const b of builds)
    console.log(
      `| ${b.dir} | ${median(b.all).toFixed(1)} (${b.all.map((x) => x.toFixed(1)).join(", ")}) | ${median(b.main).toFixed(1)} |`,
    )
} finally {
  for (const b of builds) {
    // the daemons first, while their supervisor answers (a CLI would start a new one)
    if (b.host.exitCode === null)
      try {
        b.cli("stop", "--all")
      } catch {}
    b.host.kill("SIGTERM")
  }
  await sleep(1500)
  rmSync(root, { recursive: true, force: true })
}
