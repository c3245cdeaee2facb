// The supervisor's memory per subsystem: RSS, heap and code at idle with N daemons, for one
// configuration after another, each a feature switched on (or off) against the base.
// Usage: node bench/memory-budget.mjs [--daemons 50] [--repeat 3] [--only base,web,...] [--flags "..."]
//          [--cycles 0]
// (build first: npm run build). Each life runs `node <the background supervisor's flags>
// -r bench/memory-probe.cjs dist/supervisor.cjs supervisor run` on a fresh state directory, starts
// the N sleepers of bench/project.mjs (plus what the variant adds), exercises the feature once
// (a request for the page, a scrape, ...), waits 3 s, reads VmRSS (with the spawn helper's, as
// bench/daemons.mjs counts it), then asks the probe for V8's figures after a full collection.
// The dist/ under test is copied first; its code cache is made once under the same flags.
// Figures are medians over --repeat lives; "Δ" is against the base of the same run.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { helperPids } from "./proc.mjs"
import { writeSleepersProject } from "./project.mjs"
import { supervisorEnv, supervisorNodeFlags } from "./sandbox.mjs"

const argv = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`)
  return i < 0 ? fallback : argv[i + 1]
}
const N = Number(opt("daemons", 50))
const REPEAT = Number(opt("repeat", 3))
// start/stop/clean cycles before the measured start (bench/daemons.mjs measures after its rounds)
const CYCLES = Number(opt("cycles", 0))
const here = fileURLToPath(new URL(".", import.meta.url))
// the flags a background supervisor runs with (src/host/nodeFlags.ts), unless --flags says others
const FLAGS = opt("flags", undefined)?.split(" ").filter(Boolean) ?? supervisorNodeFlags()

const root = mkdtempSync(join(tmpdir(), "sv-memory-budget-"))
const dist = join(root, "dist")
cpSync(resolve("dist"), dist, { recursive: true })
cpSync(resolve("package.json"), join(root, "package.json"))
const cache = join(dist, "host.cjs.cache")
const bin = join(dist, "supervisor.cjs")
const probeFile = join(root, "probe.json")
const project = join(root, "project")

/** Extra daemon tables appended to the sleepers' file. */
const withDaemons = (toml) => ({ toml })
const VARIANTS = {
  base: {},
  "no code cache": { noCache: true },
  "no spawn helper": { env: { SUPERVISOR_SPAWN_HELPER: "0" } },
  "web page (page and OpenAPI served)": {
    env: { SUPERVISOR_WEB_PORT: "0" },
    exercise: async (ctx) => {
      await ctx.get("web", "/")
      await ctx.get("web", "/api/openapi.json")
    },
  },
  "usage history (GET /api/usage)": { exercise: (ctx) => ctx.socketGet("/api/usage") },
  "metrics (GET /metrics)": { exercise: (ctx) => ctx.socketGet("/metrics") },
  "proxy (https)": {
    env: { SUPERVISOR_PROXY_ENABLE: "true", SUPERVISOR_PROXY_PORT: "0" },
  },
  "cron (one daemon)": withDaemons(
    '[daemons.c]\nrun = "exec sleep 100000"\ncron = { schedule = "0 0 0 * * *" }\n',
  ),
  "watch (one daemon)": withDaemons('[daemons.w]\nrun = "exec sleep 100000"\nwatch = ["*.txt"]\n'),
  "limits (memory_limit on all)": { limits: true },
  // the base runs with the supervisor's malloc tuning (src/host/mallocTuning.ts), as a background one
  "malloc: glibc's defaults": { env: { GLIBC_TUNABLES: undefined, SUPERVISOR_MALLOC_TUNED: undefined } },
  "malloc: one arena": {
    env: { GLIBC_TUNABLES: `${supervisorEnv().GLIBC_TUNABLES}:glibc.malloc.arena_max=1` },
  },
  "libuv pool: 1 thread": { env: { UV_THREADPOOL_SIZE: "1" } },
}
const names = opt("only", undefined)?.split(",") ?? Object.keys(VARIANTS)

const rssKiB = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)

const life = async (name) => {
  const v = VARIANTS[name]
  const state = join(root, "state")
  rmSync(state, { recursive: true, force: true })
  rmSync(project, { recursive: true, force: true })
  writeSleepersProject(project, N)
  let toml = readFileSync(join(project, "supervisor.toml"), "utf8")
  if (v.limits) toml = toml.replaceAll("ready_delay = 0\n", 'ready_delay = 0\nmemory_limit = "1G"\n')
  if (v.toml) toml += `\n${v.toml}`
  writeFileSync(join(project, "supervisor.toml"), toml)
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    SUPERVISOR_STATE_DIR: state,
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc"),
    SUPERVISOR_MEMORY_PROBE: probeFile,
    ...supervisorEnv(),
    ...(process.env.SUPERVISOR_MEMORY_SNAPSHOT
      ? { SUPERVISOR_MEMORY_SNAPSHOT: process.env.SUPERVISOR_MEMORY_SNAPSHOT }
      : {}),
    ...v.env,
  }
  const cli = (...a) => {
    const r = spawnSync(process.execPath, [bin, ...a], { cwd: project, env, encoding: "utf8" })
    if (r.status !== 0) throw new Error(`supervisor ${a.join(" ")}: ${r.stderr}`)
    return r.stdout
  }
  const saved = v.noCache && existsSync(cache) ? readFileSync(cache) : undefined
  if (v.noCache) rmSync(cache, { force: true })
  const host = spawn(
    process.execPath,
    [...FLAGS, "-r", join(here, "memory-probe.cjs"), bin, "supervisor", "run"],
    {
      env,
      cwd: "/",
      stdio: "ignore",
    },
  )
  try {
    const deadline = Date.now() + 30_000
    for (;;) {
      const r = spawnSync(process.execPath, [bin, "supervisor", "status", "--json"], {
        env,
        encoding: "utf8",
      })
      if (r.status === 0 && JSON.parse(r.stdout).running) break
      if (Date.now() > deadline) throw new Error("the supervisor did not start")
      await sleep(100)
    }
    for (let c = 0; c < CYCLES; c++) {
      cli("start", "--all", "--quiet")
      cli("stop", "--all")
      cli("clean")
    }
    cli("start", "--all", "--quiet")
    for (let i = 0; i < 3; i++) cli("list", "--json")
    const token = existsSync(join(state, "api-token"))
      ? readFileSync(join(state, "api-token"), "utf8").trim()
      : ""
    const status = JSON.parse(cli("supervisor", "status", "--json"))
    const ctx = {
      get: async (kind, path) => {
        const r = await fetch(`${status[`${kind}_url`]}${path}`, {
          headers: { authorization: `Bearer ${token}` },
        })
        await r.arrayBuffer()
      },
      socketGet: (path) =>
        new Promise((res, rej) => {
          const req = request({ socketPath: status.socket, path }, (r) => {
            r.resume()
            r.on("end", res)
          })
          req.on("error", rej)
          req.end()
        }),
    }
    if (v.exercise) await v.exercise(ctx)
    await sleep(3000)
    const rss = rssKiB(host.pid) * 1024
    const helper = helperPids(host.pid).reduce((s, p) => s + rssKiB(p) * 1024, 0)
    rmSync(probeFile, { force: true })
    process.kill(host.pid, "SIGUSR2")
    const end = Date.now() + 10_000
    while (!existsSync(probeFile) && Date.now() < end) await sleep(50)
    await sleep(process.env.SUPERVISOR_MEMORY_SNAPSHOT ? 5000 : 50)
    const probe = JSON.parse(readFileSync(probeFile, "utf8"))
    // V8 unmaps the pages a collection freed in the background: read again once that is done
    await sleep(3000)
    const rssCollected = rssKiB(host.pid) * 1024
    cli("stop", "--all")
    cli("supervisor", "stop")
    return { rss, helper, rssCollected, ...probe }
  } finally {
    if (host.exitCode === null) {
      const exited = new Promise((r) => host.once("exit", r))
      await Promise.race([exited, sleep(20_000).then(() => host.kill("SIGKILL"))])
    }
    if (saved) writeFileSync(cache, saved)
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const mib = (b) => (b / 1048576).toFixed(1)
try {
  // a first life: under other flags than the build's, the launcher rewrites the rejected code cache
  await life("base")
  const rows = {}
  for (let r = 0; r < REPEAT; r++)
    for (const name of names) {
      const out = await life(name)
      rows[name] = [...(rows[name] ?? []), out]
      console.error(`${name}: RSS ${mib(out.rss)} + helper ${mib(out.helper)} MiB`)
    }
  const pick = (name, f) => median(rows[name].map(f))
  const cols = [
    ["RSS", (x) => x.rss + x.helper],
    ["supervisor RSS", (x) => x.rss],
    ["helper RSS", (x) => x.helper],
    ["RSS 3 s after a full collection", (x) => x.rssCollected + x.helper],
    ["heap used", (x) => x.after.heapUsed],
    ["heap total", (x) => x.before.heapTotal],
    ["bytecode", (x) => x.after.bytecode],
    ["external", (x) => x.after.external],
    ["malloced", (x) => x.after.malloced],
  ]
  console.log(
    `${N} daemons, ${CYCLES} start/stop cycles first, ${REPEAT} lives each, flags: ${FLAGS.join(" ") || "(none)"}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  )
  console.log(`| configuration | ${cols.map(([c]) => `${c} MiB`).join(" | ")} | Δ RSS | Δ heap used |`)
  console.log(`|---|${cols.map(() => "---:").join("|")}|---:|---:|`)
  for (const name of names) {
    const base = rows.base ? pick("base", (x) => x.rss + x.helper) : undefined
    const baseHeap = rows.base ? pick("base", (x) => x.after.heapUsed) : undefined
    const d = (a, b) => (b === undefined ? "" : `${a - b >= 0 ? "+" : ""}${mib(a - b)}`)
    console.log(
      `| ${name} | ${cols.map(([, f]) => mib(pick(name, f))).join(" | ")} | ${d(
        pick(name, (x) => x.rss + x.helper),
        base,
      )} | ${d(
        pick(name, (x) => x.after.heapUsed),
        baseHeap,
      )} |`,
    )
  }
} finally {
  rmSync(root, { recursive: true, force: true })
}
