// What a `kill -9` of the supervising process leaves behind: supervisor vs supervisord, side by side.
// Usage: node bench/kill-compare.mjs [--daemons 5]   (build first: npm run build; supervisord from
// Debian: `apt-get install -y supervisor`, skipped when missing)
//
// Each tool runs N `sleep` daemons and one ticker (a shell loop printing a numbered line every
// 50 ms). Then: SIGKILL the supervising process; count its daemons still alive (orphans) and
// whether the ticker survived its next write; start the tool again and count live processes per
// daemon (a second copy when the new instance does not take the old ones back) and how many the
// new instance tracks; finally the ticker's lines the tool stored versus the number it printed.
// Everything runs in a temp dir; every process started here is killed at the end.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const argv = process.argv.slice(2)
const N = Number(argv[argv.indexOf("--daemons") + 1] || 5)
const BIN = resolve(import.meta.dirname, "../dist/supervisor.cjs")
const root = mkdtempSync(join(tmpdir(), "kill-compare-"))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const proc = (pid, file) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8")
  } catch {
    return ""
  }
}
const alive = (pid) => {
  const stat = proc(pid, "stat")
  return stat !== "" && !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0])
}
/** Live processes whose environment carries MARK=<value>: the daemons of one tool's run. */
const marked = (value) =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      const env = proc(pid, "environ").split("\0")
      return alive(pid) && env.includes(`KILLMARK=${value}`) && env.some((kv) => kv.startsWith("KILLNAME="))
    })
/** Top processes of each daemon (the ticker's `sleep 0.05` children share its environment). */
const topsByName = (value) => {
  const pids = new Set(marked(value))
  const out = {}
  for (const pid of pids) {
    const stat = proc(pid, "stat")
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    if (pids.has(ppid)) continue
    const name = proc(pid, "environ")
      .split("\0")
      .find((kv) => kv.startsWith("KILLNAME="))
      ?.slice(9)
    out[name] = [...(out[name] ?? []), pid]
  }
  return out
}
const waitFor = async (what, cond, ms = 20_000) => {
  const end = Date.now() + ms
  for (;;) {
    const v = await cond()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}
const TICKER =
  'i=0; while :; do i=$((i+1)); echo "tick $$ $i"; echo $i > last.$$.tmp; mv last.$$.tmp last.$$; sleep 0.05; done'
const started = []
const cleanup = () => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {}
  }
  for (const tool of ["sv", "sd"])
    for (const pid of marked(tool)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
    }
}

const report = async (tool, mark, dir, killSupervisor, restart, trackedCount, storedTicks) => {
  await waitFor(`${tool}: ${N + 1} daemons`, () => Object.keys(topsByName(mark)).length === N + 1)
  await sleep(500)
  const [ticker] = topsByName(mark).ticker
  killSupervisor()
  // the ticker prints for 2 s with nobody supervising it
  await sleep(2000)
  const after = topsByName(mark)
  const orphans = Object.values(after).flat().length
  await restart()
  await sleep(3000)
  const again = topsByName(mark)
  const copies = Math.max(...Object.values(again).map((p) => p.length))
  const tracked = await trackedCount()
  // lines of the first ticker: what it printed (read first) against what the tool stored
  const printed = Number(readFileSync(join(dir, `last.${ticker}`), "utf8"))
  const stored = new Set(
    (await storedTicks())
      .map((l) => /^tick (\d+) (\d+)$/.exec(l))
      .filter((m) => m !== null && Number(m[1]) === ticker)
      .map((m) => Number(m[2])),
  )
  let lost = 0
  for (let i = 1; i <= printed; i++) if (!stored.has(i)) lost++
  return {
    tool,
    daemons: N + 1,
    "alive after kill -9": orphans,
    "processes after restart": Object.values(again).flat().length,
    "most copies of one daemon": copies,
    "tracked by the new instance": tracked,
    "ticker lines printed": printed,
    "ticker lines lost": lost,
  }
}

const supervisor = async () => {
  const dir = join(root, "sv")
  mkdirSync(dir)
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    SUPERVISOR_STATE_DIR: join(dir, "state"),
    SUPERVISOR_CONFIG_DIR: join(dir, "cfg"),
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(dir, "etc"),
    KILLMARK: "sv",
    NO_COLOR: "1",
  }
  const toml = [`namespace = "kc"`]
  for (let i = 0; i < N; i++)
    toml.push(
      `[daemons.s${i}]`,
      'run = "exec sleep 100000"',
      "ready_delay = 0",
      `env = { KILLNAME = "s${i}" }`,
    )
  toml.push("[daemons.ticker]", `run = '${TICKER}'`, "ready_delay = 0", 'env = { KILLNAME = "ticker" }')
  writeFileSync(join(dir, "supervisor.toml"), toml.join("\n"))
  const cli = (...args) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: "utf8" })
  cli("start", "--all")
  const pid = JSON.parse(cli("supervisor", "status", "--json").stdout).pid
  try {
    return await report(
      "supervisor",
      "sv",
      dir,
      () => process.kill(pid, "SIGKILL"),
      async () => cli("list"),
      async () => JSON.parse(cli("list", "--json").stdout).filter((e) => e.pid !== null).length,
      async () => cli("logs", "ticker", "-n", "1000000", "--raw", "--no-timestamp").stdout.split("\n"),
    )
  } finally {
    // the supervisor started again by `list` goes too, with its daemons
    cli("supervisor", "stop")
  }
}

const supervisord = async () => {
  if (spawnSync("which", ["supervisord"]).status !== 0) return undefined
  const dir = join(root, "sd")
  mkdirSync(dir)
  const conf = join(dir, "supervisord.conf")
  const lines = [
    "[unix_http_server]",
    `file=${dir}/sd.sock`,
    "[supervisord]",
    `logfile=${dir}/supervisord.log`,
    `pidfile=${dir}/supervisord.pid`,
    `childlogdir=${dir}`,
    "nodaemon=true",
    "[rpcinterface:supervisor]",
    "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
    "[supervisorctl]",
    `serverurl=unix://${dir}/sd.sock`,
  ]
  for (let i = 0; i < N; i++)
    lines.push(`[program:s${i}]`, "command=sleep 100000", `environment=KILLMARK="sd",KILLNAME="s${i}"`)
  lines.push(
    "[program:ticker]",
    `command=sh -c '${TICKER}'`,
    `directory=${dir}`,
    `stdout_logfile=${dir}/ticker.log`,
    'environment=KILLMARK="sd",KILLNAME="ticker"',
  )
  writeFileSync(conf, lines.join("\n"))
  const run = () => {
    const child = spawn("supervisord", ["-c", conf], { stdio: "ignore" })
    started.push(child.pid)
    return child
  }
  const first = run()
  return report(
    "supervisord",
    "sd",
    dir,
    () => process.kill(first.pid, "SIGKILL"),
    async () => {
      rmSync(join(dir, "sd.sock"), { force: true })
      run()
    },
    async () =>
      spawnSync("supervisorctl", ["-c", conf, "status"], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((l) => /RUNNING/.test(l)).length,
    async () =>
      existsSync(join(dir, "ticker.log")) ? readFileSync(join(dir, "ticker.log"), "utf8").split("\n") : [],
  )
}

try {
  const rows = [await supervisor(), await supervisord()].filter((r) => r !== undefined)
  console.table(rows)
} finally {
  cleanup()
  rmSync(root, { recursive: true, force: true })
}
