// What a file written many times a second beside the watched ones costs the supervisor: a daemon
// appends a line to `out.log` in its project's root every millisecond, among `--files` other
// files, and the supervisor's CPU time (utime + stime of /proc/<pid>/stat) is read over
// `--seconds`, as a percentage of one core. Three projects, one life each: no `watch` (the
// registry still watches the project's configuration files in that directory), `watch = ["*.ts"]`
// (the root itself watched) and `watch = ["src/**/*.ts"]`.
// Usage: node bench/watch-churn.mjs [--seconds 10] [--files 200] [--builds DIR,DIR] [--background 0]
// (build first: npm run build). `--builds` compares builds (each directory's dist/, copied first).
// PM2, when bench/daemons.mjs or bench/automation.mjs installed it (<tmpdir>/supervisor-bench, or
// $SUPERVISOR_BENCH_CACHE), is measured beside: its God daemon's CPU with the same app started
// `--watch --ignore-watch out.log` (its whole directory watched, the written file left out).
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { busyMode, busyProcesses } from "./busy.mjs"
import { cpuMs } from "./proc.mjs"
import { benchSandbox, copyBuild, PM2_BIN } from "./sandbox.mjs"

const args = process.argv.slice(2)
const options = { seconds: "10", files: "200", builds: resolve(import.meta.dirname, ".."), background: "0" }
for (let i = 0; i < args.length; i++) {
  const name = args[i].startsWith("--") ? args[i].slice(2) : undefined
  if (name === undefined || !(name in options)) throw new Error(`unknown option ${args[i]}`)
  options[name] = args[++i]
}
const seconds = Number(options.seconds)
const root = mkdtempSync(join(tmpdir(), "supervisor-watch-churn-"))
const busy = busyProcesses(Number(options.background))
const scenarios = [
  ["no watch (the registry's watch only)", ""],
  ['watch = ["*.ts"]', 'watch = ["*.ts"]'],
  ['watch = ["src/**/*.ts"]', 'watch = ["src/**/*.ts"]'],
]

/** A project of `--files` files and the writing daemon's script. */
const makeProject = (life) => {
  const project = join(life, "project")
  mkdirSync(join(project, "src"), { recursive: true })
  for (let i = 0; i < Number(options.files); i++) writeFileSync(join(project, `f${i}.txt`), "")
  writeFileSync(join(project, "app.ts"), "")
  writeFileSync(join(project, "src", "a.ts"), "")
  writeFileSync(
    join(project, "w.cjs"),
    'const fs = require("node:fs"); setInterval(() => fs.appendFileSync("out.log", "line\\n"), 1)\n',
  )
  return project
}

/** The CPU of `pid` over the window, as a percentage of one core. */
const cpuOver = async (pid) => {
  await sleep(1000)
  const before = cpuMs(pid)
  await sleep(seconds * 1000)
  return (cpuMs(pid) - before) / (seconds * 10)
}

/** One life: a supervisor of its own, the writing daemon started, its CPU over the window. */
const measure = async (bin, name, watch) => {
  const life = mkdtempSync(join(root, "life-"))
  const project = makeProject(life)
  writeFileSync(join(project, "supervisor.toml"), `[daemons.w]\nrun = "exec node w.cjs"\n${watch}\n`)
  const { env, cli } = benchSandbox(life, project, {}, bin)
  try {
    cli("supervisor", "start")
    const pid = JSON.parse(cli("supervisor", "status", "--json")).pid
    cli("start", "w", "--quiet")
    const percent = await cpuOver(pid)
    console.log(`${name}: supervisor CPU ${percent.toFixed(1)}% of a core`)
    return percent
  } finally {
    spawnSync(process.execPath, [bin, "supervisor", "stop"], { cwd: project, env, timeout: 60_000 })
  }
}

/** The same app under PM2, watched as `--watch` watches: its God daemon's CPU over the window. */
const measurePm2 = async () => {
  const life = mkdtempSync(join(root, "pm2-"))
  const project = makeProject(life)
  const env = { PATH: process.env.PATH, HOME: join(life, "home"), PM2_HOME: join(life, "pm2-home") }
  const pm2 = (...argv) => {
    const r = spawnSync(process.execPath, [PM2_BIN, ...argv], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 60_000,
    })
    if (r.status !== 0) throw new Error(`pm2 ${argv.join(" ")}: ${r.stderr}`)
    return r.stdout
  }
  try {
    pm2("start", "w.cjs", "--name", "w", "--watch", "--ignore-watch", "out.log")
    const pid = Number(readFileSync(join(env.PM2_HOME, "pm2.pid"), "utf8"))
    const percent = await cpuOver(pid)
    // the file is left out: PM2 must not have restarted the app for it
    const restarts = JSON.parse(pm2("jlist")).find((p) => p.name === "w")?.pm2_env.restart_time
    if (restarts !== 0) throw new Error(`PM2 restarted the app ${restarts} times`)
    console.log(`PM2 --watch --ignore-watch out.log: God daemon CPU ${percent.toFixed(1)}% of a core`)
    return percent
  } finally {
    spawnSync(process.execPath, [PM2_BIN, "kill"], { cwd: project, env, timeout: 60_000 })
  }
}

try {
  console.log(
    `${new Date().toISOString()}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}, ${options.background} busy process(es) (${busyMode}); a daemon appends to out.log every 1 ms among ${options.files} files; ${seconds} s windows`,
  )
  const builds = options.builds.split(",").map((dir, i) => ({ dir, ...copyBuild(dir, root, `build-${i}`) }))
  const rows = []
  for (const [name, watch] of scenarios)
    for (const build of builds) {
      const label = builds.length > 1 ? `${name}, ${build.dir}` : name
      rows.push([label, await measure(build.bin, label, watch)])
    }
  if (existsSync(PM2_BIN)) rows.push(["PM2 `--watch --ignore-watch out.log`", await measurePm2()])
  else console.log(`PM2 left out: ${PM2_BIN} is missing (bench/automation.mjs installs it)`)
  console.log("\n| project | the supervisor's (PM2's) CPU, % of a core |\n|---|---:|")
  for (const [label, percent] of rows) console.log(`| ${label} | ${percent.toFixed(1)} |`)
} finally {
  busy.stop()
  rmSync(root, { recursive: true, force: true })
}
