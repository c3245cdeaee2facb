// supervisor vs PM2 vs supervisord, measured side by side in one run.
// Usage: node bench/daemons.mjs [--daemons 50] [--rounds 3] [--runs 21] [--lines 1000000]
//          [--only supervisor,pm2,supervisord] [--only-flood] [--wait-quiet 1.0] [--wait-max 600]
//          [--no-install] [--json FILE] [--keep] [--background N] [--flood seq|json] [--rest 15]
// (build first: npm run build)
//
// 1. start N daemons (`sleep 100000`) and wait until all run; 2. the listing command
// (`list --json` / `pm2 jlist` / `supervisorctl status`) with N running, median and p90;
// 3. RSS of the supervising process (with its helpers) with N daemons, right after the listings
// and, with `--rest S`, again after S seconds with nothing asked of it, each tool's own process
// also by kind of mapping (its executable, malloc's heap, V8's heap pages, ...); 4. stop all N; 5. a flood: one
// daemon prints `seq 1 1000000` and exits. Two figures: the time until every line is stored (and
// the count), then the time from a second flood's start until the tool's own log reader has
// printed every line (`logs ID -n N --raw --no-timestamp`, `pm2 logs ID --raw --lines N
// --nostream`, `supervisorctl tail -BYTES ID`, run again until its output is exact); and the
// reader's time on the stored million lines alone. Steps 1-4 repeat `--rounds` times (tools
// interleaved, order rotated each round); the flood runs once per round and tool. `--only-flood`
// skips steps 1-4. `--flood json` makes the flood JSON log lines (`{"level":"info","n":N}`, 27 MB
// in all, under the supervisor's 32 MiB retention threshold; printed by awk) and the supervisor's flood daemons `log_format = "json"`. `--background N` starts N busy processes first (a shell loop each),
// for a machine as busy as a developer's: tools that scan every process pay for each one.
// "## Targets" checks each goal of docs/benchmarks.md on the medians and shows every round's
// ratio (rounds are interleaved, so round i of each tool ran side by side); a missed target makes
// the script exit 1.
// Each CLI runs as its installed command does: `supervisor` is dist/supervisor (a shell script
// running the launcher: scripts/entry.sh), `pm2` PM2's bin/pm2 (a node script).
// dist/ is copied first (a rebuild during the run does not matter). Everything runs in a temp
// dir with its own HOME,
// SUPERVISOR_STATE_DIR and PM2_HOME, and every process started here is stopped at the end,
// also on error or Ctrl-C.
//
// PM2 is installed on first use into a cache dir outside the repository
// ($SUPERVISOR_BENCH_CACHE, default <tmpdir>/supervisor-bench) with
// `npm install --prefix <cache>/pm2 pm2@latest` (skip with --no-install); supervisord
// comes from Debian (`apt-get install -y supervisor`). A missing tool is skipped.

import { spawn, spawnSync } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { busyMode, busyProcesses } from "./busy.mjs"
import { helperPids, processRssByMapping } from "./proc.mjs"
import { BENCH_CACHE, PM2_BIN } from "./sandbox.mjs"

// ---------------------------------------------------------------------------- options
const argv = process.argv.slice(2)
const flag = (name) => argv.includes(`--${name}`)
const opt = (name, dflt) => {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (i < 0) return dflt
  return argv[i].includes("=") ? argv[i].slice(argv[i].indexOf("=") + 1) : argv[i + 1]
}
if (flag("help") || flag("h")) {
  console.log(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\nimport")[0])
  process.exit(0)
}
const N = Number(opt("daemons", 50))
const ROUNDS = Number(opt("rounds", 3))
const RUNS = Number(opt("runs", 21))
const LINES = Number(opt("lines", 1_000_000))
const ONLY = String(opt("only", "supervisor,pm2,supervisord")).split(",")
const ONLY_FLOOD = flag("only-flood")
const WAIT_QUIET = opt("wait-quiet", undefined)
const WAIT_MAX = Number(opt("wait-max", 600))
const BACKGROUND = Number(opt("background", 0))
// seconds of rest before the second RSS reading (0: none): V8 gives a burst's memory back only
// after several seconds without work, for every Node-based tool alike
const REST = Number(opt("rest", 0))
const JSON_OUT = opt("json", undefined)
const KEEP = flag("keep")
const INSTALL = !flag("no-install")

const DIST = fileURLToPath(new URL("../dist/", import.meta.url))
const SLEEP = ["sleep", "100000"]
const FLOOD_KIND = String(opt("flood", "seq"))
if (!["seq", "json"].includes(FLOOD_KIND)) throw new Error(`--flood ${FLOOD_KIND}: expected seq or json`)
/** Line `i` (from 1) of the flood. */
const floodLine = (i) =>
  FLOOD_KIND === "json" ? `{"level":"${i % 10 === 0 ? "error" : "info"}","n":${i}}` : String(i)
/** Set once the temp dir exists: the flood program (`seq`, or awk printing JSON lines). */
let FLOOD = ["seq", "1", String(LINES)]
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 23)}]`, ...a)

// ---------------------------------------------------------------------------- helpers
const now = () => Number(process.hrtime.bigint()) / 1e6
/** Set on SIGINT/SIGTERM/SIGHUP: no new command starts, waits end, only the teardown runs. */
let interrupted = false
const pause = (ms) => new Promise((r) => setTimeout(r, ms))
const sleepMs = (ms) =>
  pause(ms).then(() => {
    if (interrupted) throw new Error("interrupted")
  })
const quantile = (xs, p) => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
const median = (xs) => quantile(xs, 0.5)
const fmt = (x, d = 0) => (x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(d))
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")

/** Runs a command to completion with a deadline; returns its output and wall time in ms. */
const run = (cmd, args, { cwd, env, timeout = 60_000, input, force = false } = {}) => {
  if (interrupted && !force) throw new Error("interrupted")
  const t = now()
  const r = spawnSync(cmd, args, {
    cwd,
    env,
    input,
    encoding: "utf8",
    timeout,
    killSignal: "SIGKILL",
    maxBuffer: 256 * 1024 * 1024,
  })
  const ms = now() - t
  if (r.error?.code === "ETIMEDOUT")
    throw new Error(`${cmd} ${args.join(" ")}: no answer within ${timeout} ms`)
  if (r.error) throw r.error
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms }
}
const ok = (r, what) => {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code ?? r.signal}: ${(r.stderr || r.stdout).trim()}`)
  return r
}

const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}
const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim()
  } catch {
    return ""
  }
}
const procStatus = (pid, key) => {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"))
  return m ? Number(m[1]) * 1024 : Number.NaN
}
/** A status field (kB → bytes) summed over the tool's process and its helpers. */
const toolMemory = (pid, key) => [pid, ...helperPids(pid)].reduce((sum, p) => sum + procStatus(p, key), 0)
/** Waits (bounded) until none of `pids` is alive; returns whether they all went. */
const waitGone = async (pids, deadlineMs) => {
  const end = now() + deadlineMs
  while (now() < end) {
    if (pids.every((p) => !alive(p))) return true
    await sleepMs(5)
  }
  return pids.every((p) => !alive(p))
}

/** Processes started here (daemons of any tool): killed at the end if still there. */
const tracked = new Map() // pid -> expected command line
const track = (pid, expect) => pid > 0 && tracked.set(pid, expect)

/** Counts '\n' in a growing file, reading only what was appended since the last call. */
const lineCounter = (file) => {
  let fd
  let pos = 0
  let lines = 0
  const buf = Buffer.allocUnsafe(1 << 20)
  return () => {
    if (fd === undefined) {
      if (!existsSync(file)) return 0
      fd = openSync(file, "r")
    }
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos)
      if (n === 0) return lines
      pos += n
      const chunk = buf.subarray(0, n)
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
    }
  }
}

/** The flood daemons of every tool: `fN` for "stored whole", `rN` for "printed by the reader". */
const floodNames = () => Array.from({ length: ROUNDS }, (_, r) => [`f${r + 1}`, `r${r + 1}`]).flat()

const expectedText = () => `${Array.from({ length: LINES }, (_, i) => floodLine(i + 1)).join("\n")}\n`
const expectedFlood = () => Buffer.from(expectedText())
let expectedSize
const expectedBytes = () => {
  expectedSize ??= expectedFlood().length
  return expectedSize
}

// ---------------------------------------------------------------------------- setup
// Every file the launcher may load (bundles, code caches, quick.cjs), not the source maps.
const DIST_FILES = existsSync(DIST)
  ? readdirSync(DIST).filter((f) => !f.endsWith(".map") && f !== "types")
  : []
if (!existsSync(join(DIST, "supervisor"))) {
  console.error(`error: ${join(DIST, "supervisor")} is missing: run \`npm run build\` first`)
  process.exit(1)
}
const root = mkdtempSync(join(tmpdir(), "sv-daemons-"))
if (FLOOD_KIND === "json") {
  const script = join(root, "flood.awk")
  writeFileSync(
    script,
    `BEGIN { for (i = 1; i <= ${LINES}; i++) printf "{\\"level\\":\\"%s\\",\\"n\\":%d}\\n", (i % 10 == 0 ? "error" : "info"), i }\n`,
  )
  FLOOD = ["awk", "-f", script]
}
// The build under test is copied first, so that a rebuild of dist/ during the run (npm test
// in another terminal) changes nothing here; a copy that raced with a rebuild is taken again.
// The CLIs run as their installed commands: dist/supervisor (scripts/entry.sh) and PM2's bin/pm2.
const SUPERVISOR_BIN = join(root, "dist", "supervisor")
{
  mkdirSync(join(root, "dist"))
  const stamp = () =>
    DIST_FILES.map((f) => (existsSync(join(DIST, f)) ? statSync(join(DIST, f)).mtimeMs : 0)).join()
  for (let i = 0; ; i++) {
    const before = stamp()
    for (const f of DIST_FILES)
      if (existsSync(join(DIST, f))) copyFileSync(join(DIST, f), join(root, "dist", f))
    // `supervisor --version` reads ../package.json next to dist/.
    copyFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), join(root, "package.json"))
    if (stamp() === before && Date.now() - Math.max(...before.split(",").map(Number)) > 2000) break
    if (i === 30) {
      console.error("error: dist/ keeps changing (a build is running?); try again when it is done")
      rmSync(root, { recursive: true, force: true })
      process.exit(1)
    }
    spawnSync("sleep", ["2"])
  }
}
const home = join(root, "home")
mkdirSync(home)
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(SUPERVISOR_|XDG_|PM2_)/.test(k) && k !== "NO_COLOR"),
)
Object.assign(baseEnv, { HOME: home, NO_COLOR: "1", LANG: "C.UTF-8" })

const whichBin = (name) => {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" })
  return r.status === 0 ? r.stdout.trim() : undefined
}
const version = (cmd, args, env) => {
  try {
    const r = run(cmd, args, { env, timeout: 30_000 })
    return (r.stdout || r.stderr).trim().split("\n").pop()
  } catch {
    return "?"
  }
}

/** One adapter per tool: setup, start/list/stop of the N daemons, flood, teardown. */
const tools = []

// --- supervisor
{
  const state = join(root, "sv-state")
  const fifty = join(root, "fifty")
  const flood = join(root, "flood")
  mkdirSync(fifty)
  mkdirSync(flood)
  const names = Array.from({ length: N }, (_, i) => `d${String(i + 1).padStart(2, "0")}`)
  writeFileSync(
    join(fifty, "supervisor.toml"),
    names.map((n) => `[daemons.${n}]\nrun = "exec ${SLEEP.join(" ")}"\nready_delay = 0\n`).join("\n"),
  )
  writeFileSync(
    join(flood, "supervisor.toml"),
    floodNames()
      .map(
        (n) =>
          `[daemons.${n}]\nrun = "exec ${FLOOD.join(" ")}"\nready_delay = 0\n` +
          (FLOOD_KIND === "json" ? `[daemons.${n}.logs]\nlog_format = "json"\n` : ""),
      )
      .join("\n"),
  )
  const env = { ...baseEnv, SUPERVISOR_STATE_DIR: state, SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "sv-etc") }
  const sv = (args, cwd = fifty, timeout = 120_000, force = false) =>
    run(SUPERVISOR_BIN, args, { cwd, env, timeout, force })
  let pid
  const runningPids = () => {
    const list = JSON.parse(ok(sv(["list", "--json"]), "supervisor list --json").stdout)
    return list
      .filter((d) => d.id.namespace === "fifty" && d.status.type === "running" && d.pid)
      .map((d) => d.pid)
  }
  tools.push({
    name: "supervisor",
    available: () => true,
    version: () => version(SUPERVISOR_BIN, ["--version"], env),
    versionRun: () => ok(sv(["--version"]), "supervisor --version"),
    setup: () => {
      ok(sv(["supervisor", "start"]), "supervisor supervisor start")
      pid = JSON.parse(ok(sv(["supervisor", "status", "--json"]), "supervisor status").stdout).pid
      track(pid, "supervisor")
    },
    pid: () => pid,
    start: () => ok(sv(["start", "--all", "--quiet"]), "supervisor start --all"),
    runningPids,
    list: () => ok(sv(["list", "--json"]), "supervisor list --json"),
    listCommand: "supervisor list --json",
    stop: () => ok(sv(["stop", "--all"]), "supervisor stop --all"),
    reset: () => ok(sv(["clean"]), "supervisor clean"),
    readCommand: `supervisor logs ID -n ${LINES} --raw --no-timestamp`,
    flood: (id) => {
      const idx = join(state, "logs", `flood--${id}.idx`)
      const out = join(state, "logs", `flood--${id}.out`)
      const count = () => {
        // the index (docs/logs.md): a header line, then one record per chunk read
        let text
        try {
          text = readFileSync(idx, "utf8")
        } catch {
          return 0
        }
        let n = 0
        for (const line of text.split("\n").slice(1)) {
          if (line.startsWith("{")) {
            try {
              n += JSON.parse(line).n
            } catch {}
          }
        }
        return n
      }
      return {
        command: () => spawnTool(SUPERVISOR_BIN, ["start", id], { cwd: flood, env }),
        count,
        file: out,
        read: () => sv(["logs", id, "-n", String(LINES), "--raw", "--no-timestamp"], flood),
        verify: () => {
          // the index must cover every byte of the output, records back to back
          const recs = readFileSync(idx, "utf8")
            .split("\n")
            .slice(1)
            .filter((l) => l.startsWith("{"))
            .map((l) => JSON.parse(l))
          let contiguous = recs.length > 0 && recs[0].first === 1 && recs[0].off === 0
          for (let i = 1; i < recs.length; i++)
            if (recs[i].first !== recs[i - 1].first + recs[i - 1].n || recs[i].off !== recs[i - 1].end)
              contiguous = false
          if (recs.at(-1)?.end !== statSync(out).size) contiguous = false
          const last = JSON.parse(ok(sv(["logs", id, "-n", "1", "--json"], flood), "logs -n 1").stdout)
          const tail = sv(["logs", id, "-n", "1000", "--raw", "--no-timestamp"], flood)
          const tailOk =
            tail.stdout ===
            `${Array.from({ length: 1000 }, (_, i) => floodLine(LINES - 999 + i)).join("\n")}\n`
          return {
            indexContiguous: contiguous,
            cliLast: last.at(-1),
            cliLastOk: last.at(-1)?.message === floodLine(LINES) && last.at(-1)?.id === LINES,
            cliTail1000Ok: tailOk,
            cliTail1000Ms: tail.ms,
          }
        },
      }
    },
    teardown: () => {
      try {
        sv(["supervisor", "stop"], fifty, 60_000, true)
      } catch (e) {
        log(`supervisor supervisor stop: ${e.message}`)
      }
    },
  })
}

// --- PM2
{
  const pm2Home = join(root, "pm2-home")
  const dir = join(root, "pm2")
  mkdirSync(dir)
  const env = { ...baseEnv, PM2_HOME: pm2Home }
  const pm2 = (args, timeout = 120_000, force = false) =>
    run(PM2_BIN, args, { cwd: dir, env, timeout, force })
  const names = Array.from({ length: N }, (_, i) => `d${String(i + 1).padStart(2, "0")}`)
  writeFileSync(
    join(dir, "fifty.json"),
    JSON.stringify({
      apps: names.map((name) => ({
        name,
        script: SLEEP[0],
        args: SLEEP.slice(1).join(" "),
        interpreter: "none",
        cwd: dir,
      })),
    }),
  )
  let pid
  const jlist = () => JSON.parse(ok(pm2(["jlist"]), "pm2 jlist").stdout)
  tools.push({
    name: "pm2",
    available: () => {
      if (existsSync(PM2_BIN)) return true
      if (!INSTALL) return false
      log(`installing PM2: npm install --prefix ${join(BENCH_CACHE, "pm2")} pm2@latest`)
      const r = spawnSync(
        "npm",
        ["install", "--no-audit", "--no-fund", "--prefix", join(BENCH_CACHE, "pm2"), "pm2@latest"],
        {
          stdio: ["ignore", "ignore", "inherit"],
          timeout: 300_000,
        },
      )
      return r.status === 0 && existsSync(PM2_BIN)
    },
    install: `npm install --prefix ${join(BENCH_CACHE, "pm2")} pm2@latest`,
    version: () => version(PM2_BIN, ["--version"], env),
    setup: () => {
      ok(pm2(["ping"]), "pm2 ping")
      pid = Number(readFileSync(join(pm2Home, "pm2.pid"), "utf8"))
      track(pid, "PM2")
    },
    pid: () => pid,
    start: () => ok(pm2(["start", join(dir, "fifty.json")]), "pm2 start"),
    runningPids: () =>
      jlist()
        .filter((p) => /^d\d+$/.test(p.name) && p.pm2_env.status === "online" && p.pid)
        .map((p) => p.pid),
    list: () => ok(pm2(["jlist"]), "pm2 jlist"),
    listCommand: "pm2 jlist",
    stop: () => ok(pm2(["stop", "all"]), "pm2 stop all"),
    reset: () => ok(pm2(["delete", "all"]), "pm2 delete all"),
    readCommand: `pm2 logs ID --raw --lines ${LINES} --nostream`,
    flood: (name) => {
      const out = join(dir, `${name}.out.log`)
      writeFileSync(
        join(dir, `${name}.json`),
        JSON.stringify({
          apps: [
            {
              name,
              script: FLOOD[0],
              args: FLOOD.slice(1).join(" "),
              interpreter: "none",
              autorestart: false,
              cwd: dir,
              out_file: out,
              error_file: join(dir, `${name}.err.log`),
            },
          ],
        }),
      )
      return {
        command: () => spawnTool(PM2_BIN, ["start", join(dir, `${name}.json`)], { cwd: dir, env }),
        count: lineCounter(out),
        file: out,
        // the lines under the header of the output log (the error log's section comes first, empty)
        read: () => {
          const r = pm2(["logs", name, "--raw", "--lines", String(LINES), "--nostream"])
          const header = r.stdout.indexOf(`${out} last ${LINES} lines:`)
          const text = header === -1 ? "" : r.stdout.slice(r.stdout.indexOf("\n", header) + 1)
          return { ...r, stdout: text.endsWith("\n\n") ? text.slice(0, -1) : text }
        },
        verify: () => ({}),
        after: () => pm2(["delete", name]),
      }
    },
    teardown: () => {
      try {
        pm2(["kill"], 60_000, true)
      } catch (e) {
        log(`pm2 kill: ${e.message}`)
      }
    },
  })
}

// --- supervisord
{
  const dir = join(root, "sd")
  mkdirSync(join(dir, "logs"), { recursive: true })
  const conf = join(dir, "supervisord.conf")
  const sock = join(dir, "supervisor.sock")
  const names = Array.from({ length: N }, (_, i) => `d${String(i + 1).padStart(2, "0")}`)
  const program = (name, command, extra = "") =>
    `[program:${name}]\ncommand=${command}\ndirectory=${dir}\nautostart=false\nstartsecs=0\n` +
    `stdout_logfile=${join(dir, "logs", `${name}.out.log`)}\nstderr_logfile=${join(dir, "logs", `${name}.err.log`)}\n${extra}\n`
  writeFileSync(
    conf,
    `[unix_http_server]\nfile=${sock}\n\n[supervisord]\nlogfile=${join(dir, "supervisord.log")}\n` +
      `pidfile=${join(dir, "supervisord.pid")}\nchildlogdir=${join(dir, "logs")}\n\n` +
      `[rpcinterface:supervisor]\nsupervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n\n` +
      `[supervisorctl]\nserverurl=unix://${sock}\n\n` +
      `[group:fifty]\nprograms=${names.join(",")}\n\n` +
      names.map((n) => program(n, SLEEP.join(" "))).join("") +
      floodNames()
        .map((name) => program(name, FLOOD.join(" "), "autorestart=false\nstdout_logfile_maxbytes=0\n"))
        .join(""),
  )
  const env = { ...baseEnv }
  const ctl = (args, timeout = 120_000, force = false) =>
    run("supervisorctl", ["-c", conf, ...args], { cwd: dir, env, timeout, force })
  let child
  const status = () =>
    ctl(["status"])
      .stdout.split("\n")
      .map((l) => l.match(/^(\S+)\s+(\S+)\s+(?:pid (\d+))?/))
      .filter(Boolean)
  tools.push({
    name: "supervisord",
    available: () => Boolean(whichBin("supervisord") && whichBin("supervisorctl")),
    install: "apt-get update && apt-get install -y supervisor",
    version: () => `supervisord ${version("supervisord", ["--version"], env)}`,
    setup: async () => {
      child = spawn("supervisord", ["-n", "-c", conf], {
        cwd: dir,
        env,
        stdio: ["ignore", "ignore", openSync(join(dir, "stderr.log"), "a")],
      })
      track(child.pid, "supervisord")
      const end = now() + 30_000
      while (now() < end) {
        if (existsSync(sock) && ctl(["pid"]).code === 0) return
        await sleepMs(50)
      }
      throw new Error("supervisord did not answer within 30 s")
    },
    pid: () => child.pid,
    start: () => ok(ctl(["start", "fifty:*"]), "supervisorctl start"),
    runningPids: () =>
      status()
        .filter((m) => m[1].startsWith("fifty:") && m[2] === "RUNNING" && m[3])
        .map((m) => Number(m[3])),
    // exit 3 means "some program is not running": the flood programs, which are stopped
    list: () => {
      const r = ctl(["status"])
      if (r.code !== 0 && r.code !== 3) ok(r, "supervisorctl status")
      return r
    },
    listCommand: "supervisorctl status",
    stop: () => ok(ctl(["stop", "fifty:*"]), "supervisorctl stop"),
    reset: () => {},
    readCommand: "supervisorctl tail -BYTES ID (BYTES: twice the output's size)",
    flood: (name) => {
      const out = join(dir, "logs", `${name}.out.log`)
      return {
        command: () => spawnTool("supervisorctl", ["-c", conf, "start", name], { cwd: dir, env }),
        count: lineCounter(out),
        file: out,
        // supervisorctl ends what it prints with a newline of its own
        read: () => {
          const r = ctl(["tail", `-${2 * expectedBytes()}`, name])
          return { ...r, stdout: r.stdout.endsWith("\n\n") ? r.stdout.slice(0, -1) : r.stdout }
        },
        verify: () => ({}),
      }
    },
    teardown: async () => {
      if (!child || child.exitCode !== null) return
      try {
        ctl(["shutdown"], 60_000, true)
      } catch (e) {
        log(`supervisorctl shutdown: ${e.message}`)
      }
      const end = now() + 30_000
      while (child.exitCode === null && child.signalCode === null && now() < end) await pause(50)
    },
  })
}

/**
 * A flood as a user reads it: from just before the start command until the tool's own reader
 * (`f.read`, run again as soon as it returns) has printed exactly `text`. Gives up after 60 s, or
 * when two reads in a row print the same incomplete text 2 s after the start returned (lost lines).
 */
const readBack = async (f, text) => {
  const t0 = now()
  const started = await f.command()
  let reads = 0
  let printedMs
  let previous
  let lastReadMs
  let lastLines
  while (started.code === 0 && !interrupted && now() < t0 + 60_000) {
    const r = f.read()
    reads++
    lastReadMs = r.ms
    lastLines = r.stdout.split("\n").length - 1
    if (r.code === 0 && r.stdout === text) {
      printedMs = now() - t0
      break
    }
    if (r.stdout === previous && now() - t0 - started.ms > 2000) break
    previous = r.stdout
    await sleepMs(0)
  }
  try {
    f.after?.()
  } catch {}
  return { printedMs, reads, lastReadMs, lastLines, startMs: started.ms }
}

/** Starts a tool command in the background; resolves with its exit code and wall time. */
const spawnTool = (cmd, args, { cwd, env }) => {
  if (interrupted) return Promise.resolve({ code: null, signal: null, stderr: "interrupted", ms: 0 })
  const t = now()
  const p = spawn(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  p.stderr.on("data", (d) => {
    stderr += d
  })
  const timer = setTimeout(() => p.kill("SIGKILL"), 120_000)
  return new Promise((resolve) =>
    p.on("close", (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stderr, ms: now() - t })
    }),
  )
}

// ---------------------------------------------------------------------------- cleanup
let cleaned = false
const cleanup = async () => {
  if (cleaned) return
  cleaned = true
  log("cleaning up")
  for (const t of tools.filter((t) => t.ready)) {
    try {
      await t.teardown()
    } catch (e) {
      log(`${t.name} teardown: ${e.message}`)
    }
  }
  // anything started here that is still there (a daemon whose supervisor died, a stuck
  // supervisor): SIGKILL, checked against its command line so a recycled pid is left alone
  for (const [pid, expect] of tracked) {
    if (alive(pid) && cmdline(pid).includes(expect)) {
      log(`killing leftover ${pid} (${cmdline(pid)})`)
      try {
        process.kill(pid, "SIGKILL")
      } catch {}
    }
  }
  if (KEEP) log(`kept ${root}`)
  else rmSync(root, { recursive: true, force: true, maxRetries: 3 })
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"])
  process.on(sig, () => {
    log(`${sig}: stopping`)
    interrupted = true
    cleanup().finally(() => process.exit(130))
  })

// ---------------------------------------------------------------------------- the run
const results = { machine: {}, tools: {}, load: {} }
const main = async () => {
  if (WAIT_QUIET !== undefined) {
    const end = now() + WAIT_MAX * 1000
    while (loadavg()[0] >= Number(WAIT_QUIET) && now() < end) {
      log(`load ${load()}: waiting for the 1-min load to drop below ${WAIT_QUIET}`)
      await sleepMs(10_000)
    }
  }
  results.machine = {
    nproc: cpus().length,
    cpu: cpus()[0]?.model,
    node: process.version,
    kernel: run("uname", ["-r"]).stdout.trim(),
  }
  const repo = fileURLToPath(new URL("..", import.meta.url))
  const git = (args) => spawnSync("git", ["--no-optional-locks", ...args], { cwd: repo, encoding: "utf8" })
  results.build = {
    head: git(["rev-parse", "--short", "HEAD"]).stdout?.trim() || "?",
    dirtySrc: Boolean(git(["status", "--porcelain", "--", "src"]).stdout?.trim()),
    dist: new Date(statSync(join(DIST, "cli.cjs")).mtimeMs).toISOString(),
  }
  results.load.start = load()
  log(`load average at start: ${results.load.start}`)
  results.machine.background = BACKGROUND
  for (const pid of busyProcesses(BACKGROUND).pids) track(pid, "sh -c 'while :; do :; done'")
  if (BACKGROUND > 0) log(`${BACKGROUND} busy background processes started (${busyMode})`)

  const active = []
  for (const t of tools) {
    if (!ONLY.includes(t.name)) continue
    if (!t.available()) {
      console.log(`skipped ${t.name}: not installed. Install it with: ${t.install}`)
      continue
    }
    t.versionText = t.version()
    t.ready = true // from here on, teardown runs whatever happens
    try {
      await t.setup()
      active.push(t)
      results.tools[t.name] = {
        version: t.versionText,
        start: [],
        stop: [],
        list: [],
        rss: [],
        rssRest: [],
        maps: [],
        mapsRest: [],
        flood: [],
        versionMs: [],
      }
      log(`${t.name} ready (${t.versionText}, pid ${t.pid()})`)
    } catch (e) {
      console.log(`skipped ${t.name}: setup failed: ${e.message}`)
    }
  }
  const res = (t) => results.tools[t.name]

  // steps 1-4, `ROUNDS` times
  const floor = []
  for (let r = 0; r < (ONLY_FLOOD ? 0 : ROUNDS); r++) {
    const order = active.map((_, i) => active[(i + r) % active.length])
    results.load[`round${r + 1}`] = load()
    for (const t of order) {
      if (t.failed) continue
      try {
        // the start command's wall time; if the tool's own listing does not show all N
        // running right after it, the time goes on until it does
        const t0 = now()
        t.start()
        let ms = now() - t0
        let pids = t.runningPids()
        const end = now() + 60_000
        while (pids.length < N && now() < end) {
          await sleepMs(20)
          pids = t.runningPids()
          ms = now() - t0
        }
        if (pids.length < N) throw new Error(`only ${pids.length} of ${N} running after 60 s`)
        for (const p of pids) track(p, SLEEP.join(" "))
        t.pids = pids
        res(t).start.push(ms)
        log(`round ${r + 1}: ${t.name} started ${N} in ${ms.toFixed(0)} ms`)
      } catch (e) {
        t.failed = `start: ${e.message}`
        log(`${t.name} failed: ${t.failed}`)
      }
    }
    // listing with N running, interleaved; one warm-up each
    const per = Math.ceil(RUNS / ROUNDS)
    for (let i = 0; i <= per; i++) {
      const f = run(process.execPath, ["-e", "0"], { env: baseEnv })
      if (i > 0) floor.push(f.ms)
      const v = active.find((t) => t.name === "supervisor" && !t.failed)?.versionRun?.()
      if (i > 0 && v !== undefined) res({ name: "supervisor" }).versionMs.push(v.ms)
      for (const t of order) {
        if (t.failed) continue
        try {
          const l = t.list()
          if (i > 0) res(t).list.push(l.ms)
        } catch (e) {
          t.failed = `list: ${e.message}`
        }
      }
    }
    for (const t of order) {
      if (t.failed) continue
      res(t).rss.push(toolMemory(t.pid(), "VmRSS"))
      res(t).maps.push(processRssByMapping(t.pid()))
    }
    if (REST > 0) {
      await sleepMs(REST * 1000)
      for (const t of order) {
        if (t.failed) continue
        res(t).rssRest.push(toolMemory(t.pid(), "VmRSS"))
        res(t).mapsRest.push(processRssByMapping(t.pid()))
      }
    }
    for (const t of order) {
      if (t.failed) continue
      try {
        const t0 = now()
        t.stop()
        const gone = await waitGone(t.pids, 60_000)
        const ms = now() - t0
        if (!gone) throw new Error(`${t.pids.filter(alive).length} daemons still alive 60 s after stop`)
        res(t).stop.push(ms)
        log(`round ${r + 1}: ${t.name} stopped ${N} in ${ms.toFixed(0)} ms`)
        t.reset()
      } catch (e) {
        t.failed = `stop: ${e.message}`
        log(`${t.name} failed: ${t.failed}`)
      }
    }
  }
  results.floor = floor

  // step 5: the flood, once per round and tool
  const expected = expectedFlood()
  const text = expectedText()
  results.load.flood = load()
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of active.map((_, i) => active[(i + r) % active.length])) {
      const f = t.flood(`f${r + 1}`)
      const t0 = now()
      let cmdDone = false
      let failedEarly = false
      const cmd = f.command().then((c) => {
        cmdDone = true
        failedEarly = c.code !== 0
        return c
      })
      let count = 0
      let doneMs
      let changed = now()
      const end = t0 + 60_000
      // until every line is stored, the command failed, 60 s passed, or nothing new
      // arrived for 5 s after the command returned (the tool lost the rest)
      while (now() < end && !failedEarly && !(cmdDone && now() - changed > 5000)) {
        const c = f.count()
        if (c !== count) changed = now()
        count = c
        if (count >= LINES) {
          doneMs = now() - t0
          break
        }
        await sleepMs(10)
      }
      const c = await cmd
      // let late or duplicated lines show up before counting for good
      await sleepMs(1500)
      count = f.count()
      let identical = false
      try {
        identical = readFileSync(f.file).equals(expected)
      } catch {}
      const entry = {
        ms: doneMs,
        commandMs: c.ms,
        commandExit: c.code,
        count,
        exact: count === LINES,
        fileIdentical: identical,
        ...(c.code === 0 ? {} : { stderr: c.stderr.trim() }),
      }
      try {
        Object.assign(entry, f.verify())
      } catch (e) {
        entry.verifyError = e.message
      }
      // the tool's reader on the stored lines alone
      try {
        const stored = f.read()
        entry.storedRead = { ms: stored.ms, exact: stored.code === 0 && stored.stdout === text }
      } catch (e) {
        entry.storedRead = { error: e.message }
      }
      try {
        f.after?.()
      } catch {}
      Object.assign(entry, await readBack(t.flood(`r${r + 1}`), text))
      res(t).flood.push(entry)
      log(
        `flood ${r + 1}: ${t.name} ${doneMs === undefined ? "did not finish" : `${doneMs.toFixed(0)} ms`}, ${count} lines; ` +
          `printed by its reader ${entry.printedMs === undefined ? `never (${entry.lastLines} lines)` : `in ${entry.printedMs.toFixed(0)} ms`} (${entry.reads} reads); ` +
          `reader on the stored lines ${fmt(entry.storedRead.ms)} ms${entry.storedRead.exact ? "" : " NOT EXACT"}`,
      )
    }
  }
  for (const t of active) {
    if (t.pid() && alive(t.pid())) res(t).peakRss = toolMemory(t.pid(), "VmHWM")
    if (t.failed) res(t).failed = t.failed
  }
  results.load.end = load()
}

/**
 * Where each tool's own process holds its RSS (bench/proc.mjs, rssByMapping), MiB: the medians
 * over the rounds of each kind of mapping, with the rounds of the 256 KiB pages (V8's heap).
 */
const mappingTable = (names, key, when) => {
  const T = results.tools
  const mb = (kib) => (kib / 1024).toFixed(1)
  const med = (xs, f) => mb(median(xs.map(f)))
  console.log(
    `\nRSS of each tool's own process by mapping, ${when} (MiB, median over the rounds; bench/proc.mjs):\n`,
  )
  console.log(
    "| tool | total | its executable | other files | malloc heap | 256 KiB anonymous pages (V8's heap in Node): resident of mapped (rounds) | other anonymous | stack |",
  )
  console.log("|---|---|---|---|---|---|---|---|")
  for (const n of names) {
    const xs = T[n][key].filter((m) => m !== undefined)
    if (xs.length === 0) continue
    const pages = xs.map((m) => `${mb(m.v8Pages)}/${mb(m.v8PagesMapped)}`).join(", ")
    console.log(
      `| ${n} | ${med(xs, (m) => m.total)} | ${med(xs, (m) => m.exe)} | ${med(xs, (m) => m.files)} | ${med(xs, (m) => m.mallocHeap)} | ${med(xs, (m) => m.v8Pages)} of ${med(xs, (m) => m.v8PagesMapped)} (${pages}) | ${med(xs, (m) => m.otherAnon)} | ${med(xs, (m) => m.stack)} |`,
    )
  }
}

const report = () => {
  const T = results.tools
  const names = Object.keys(T)
  const mb = (b) => (b / 1048576).toFixed(1)
  console.log(
    `\n## Results (${N} daemons, ${ROUNDS} rounds, node ${process.version}, ${results.machine.nproc} cores)\n`,
  )
  const b = results.build
  console.log(
    `build: dist/ of ${b.dist} (HEAD ${b.head}${b.dirtySrc ? " with uncommitted changes in src/" : ""}); machine: ${results.machine.cpu}, kernel ${results.machine.kernel}${BACKGROUND > 0 ? `; ${BACKGROUND} busy background processes (${busyMode})` : ""}\n`,
  )
  console.log(
    `load average (1/5/15 min): ${Object.entries(results.load)
      .map(([k, v]) => `${k} ${v}`)
      .join("; ")}\n`,
  )
  if (!ONLY_FLOOD) {
    const rest = REST > 0 ? ` RSS after ${REST} s of rest, MiB (median; rounds) |` : ""
    console.log(
      `| tool | version | start ${N} ms (median; rounds) | stop ${N} ms (median; rounds) | list median ms | list p90 ms | RSS MiB (median; rounds) |${rest} peak RSS MiB |`,
    )
    console.log(`|---|---|---|---|---|---|---|${REST > 0 ? "---|" : ""}---|`)
    for (const n of names) {
      const x = T[n]
      const atRest = REST > 0 ? ` ${mb(median(x.rssRest))} (${x.rssRest.map(mb).join(", ")}) |` : ""
      console.log(
        `| ${n} | ${x.version} | ${fmt(median(x.start))} (${x.start.map((v) => fmt(v)).join(", ")}) | ${fmt(median(x.stop))} (${x.stop.map((v) => fmt(v)).join(", ")}) | ${fmt(median(x.list), 1)} | ${fmt(quantile(x.list, 0.9), 1)} | ${mb(median(x.rss))} (${x.rss.map(mb).join(", ")}) |${atRest} ${x.peakRss ? mb(x.peakRss) : "n/a"} |`,
      )
    }
    mappingTable(names, "maps", "right after the listings")
    if (REST > 0) mappingTable(names, "mapsRest", `after ${REST} s of rest`)
    console.log(
      `\nlisting command per tool: ${names.map((n) => `${n}: \`${tools.find((t) => t.name === n).listCommand}\``).join(", ")}; ${results.floor.length} runs each; \`node -e 0\` median ${fmt(median(results.floor), 1)} ms, p90 ${fmt(quantile(results.floor, 0.9), 1)} ms\n`,
    )
  }
  const medianOf = (values, missing) => (values.every((v) => v !== undefined) ? fmt(median(values)) : missing)
  const rounds = (values) => values.map((v) => fmt(v)).join(", ")
  console.log(
    `| flood of ${LINES} lines | printed by the tool's reader, ms from the start (median; rounds) | reads | stored whole ms (median; rounds) | reader on the stored lines ms (median; rounds) | start command returned ms | lines stored | exact | file identical to seq output |`,
  )
  console.log("|---|---|---|---|---|---|---|---|---|")
  for (const n of names) {
    const fl = T[n].flood
    const printed = fl.map((f) => f.printedMs)
    const stored = fl.map((f) => (f.storedRead?.exact ? f.storedRead.ms : undefined))
    console.log(
      `| ${n} | ${medianOf(printed, "not all printed")} (${fl.map((f) => (f.printedMs === undefined ? `${f.lastLines} lines` : fmt(f.printedMs))).join(", ")}) | ${fl.map((f) => f.reads).join(", ")} | ${medianOf(
        fl.map((f) => f.ms),
        "not all stored",
      )} (${rounds(fl.map((f) => f.ms))}) | ${medianOf(stored, "not exact")} (${rounds(fl.map((f) => f.storedRead?.ms))}) | ${rounds(fl.map((f) => f.commandMs))} | ${fl.map((f) => f.count).join(", ")} | ${fl.every((f) => f.exact) ? "yes" : "NO"} | ${fl.every((f) => f.fileIdentical) ? "yes" : "NO"} |`,
    )
  }
  console.log(
    `\nreader per tool: ${names.map((n) => `${n}: \`${tools.find((t) => t.name === n).readCommand}\``).join(", ")}`,
  )
  const sv = T.supervisor
  if (sv?.flood.length) {
    const v = sv.flood
    console.log(
      `\nsupervisor flood checks: index contiguous ${v.every((f) => f.indexContiguous) ? "yes" : "NO"}; \`logs ID -n 1 --json\` last entry id ${v.map((f) => f.cliLast?.id).join(", ")} message ${v.map((f) => JSON.stringify(f.cliLast?.message)).join(", ")}; \`logs ID -n 1000 --raw --no-timestamp\` correct ${v.every((f) => f.cliTail1000Ok) ? "yes" : "NO"} (${v.map((f) => fmt(f.cliTail1000Ms)).join(", ")} ms)`,
    )
  }
  for (const n of names) if (T[n].failed) console.log(`\n${n} FAILED: ${T[n].failed}`)

  console.log("\n## Targets\n")
  const pm = T.pm2
  const check = (label, pass, detail) => {
    if (pass === false) failedTargets.push(label)
    console.log(`- ${pass === undefined ? "n/a " : pass ? "PASS" : "FAIL"} ${label}: ${detail}`)
  }
  /** A ratio target over the interleaved rounds: the median decides, every round is shown. */
  const ratio = (label, a, b, limit, unit = (v) => `${fmt(v)} ms`, each = "rounds") => {
    const per = a.map((v, i) => v / b[i]).filter(Number.isFinite)
    const within = per.filter((r) => r <= limit).length
    const m = median(a) / median(b)
    check(
      `${label} <= ${limit}x`,
      m <= limit,
      `${unit(median(a))} vs ${unit(median(b))} = ${m.toFixed(2)}x; ${each} ${per.map((r) => `${r.toFixed(2)}x`).join(", ")} (${within} of ${per.length} within)`,
    )
  }
  if (sv && pm && !ONLY_FLOOD) {
    ratio(`start of ${N} vs PM2`, sv.start, pm.start, 0.5)
    ratio("`list --json` vs `pm2 jlist`", sv.list, pm.list, 0.5, undefined, "runs")
    ratio(`RSS with ${N} daemons vs PM2's daemon`, sv.rss, pm.rss, 1.0, (v) => `${mb(v)} MiB`)
    if (REST > 0)
      ratio(
        `RSS with ${N} daemons after ${REST} s of rest vs PM2's daemon`,
        sv.rssRest,
        pm.rssRest,
        1.0,
        (v) => `${mb(v)} MiB`,
      )
  } else if (!ONLY_FLOOD) check("comparisons with PM2", undefined, "PM2 (or supervisor) did not run")
  const sd = T.supervisord
  if (sv && sd && !ONLY_FLOOD) ratio(`stop of ${N} vs supervisord`, sv.stop, sd.stop, 0.5)
  if (sv && !ONLY_FLOOD && results.floor.length > 0) {
    // CLI start-up against the running supervisor, runs interleaved with `node -e 0`
    ratio("`list --json` vs `node -e 0`", sv.list, results.floor, 1.3, undefined, "runs")
    ratio("`--version` vs `node -e 0`", sv.versionMs, results.floor, 1.3, undefined, "runs")
  }
  if (sv) {
    const worst = Math.max(...sv.flood.map((f) => f.ms ?? Number.POSITIVE_INFINITY))
    const m = median(sv.flood.map((f) => f.ms ?? Number.POSITIVE_INFINITY))
    const exact = sv.flood.every((f) => f.exact)
    check(
      `all ${LINES} lines stored in < 1.5 s`,
      exact && m < 1500,
      `median ${fmt(m)} ms, worst ${fmt(worst)} ms, ${exact ? "every run exact" : "LINES MISSING OR DUPLICATED"}`,
    )
    const reads = sv.flood.map((f) => (f.storedRead?.exact ? f.storedRead.ms : Number.POSITIVE_INFINITY))
    check(
      `\`logs ID -n ${LINES} --raw --no-timestamp\` of the stored lines in < 1 s`,
      median(reads) < 1000,
      `median ${fmt(median(reads))} ms, worst ${fmt(Math.max(...reads))} ms${reads.every(Number.isFinite) ? ", every read exact" : ", NOT EVERY READ EXACT"}`,
    )
  }
}

try {
  await main()
} catch (e) {
  console.error(interrupted ? "interrupted" : `error: ${e.stack ?? e}`)
  process.exitCode = 1
} finally {
  await cleanup()
}
const failedTargets = []
if (Object.keys(results.tools).length) report()
if (failedTargets.length > 0) {
  console.log(`\n${failedTargets.length} target(s) missed: ${failedTargets.join("; ")}`)
  process.exitCode = 1
}
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(results, null, 2))
