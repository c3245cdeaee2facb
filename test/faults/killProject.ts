/**
 * The project the kill rounds run: 20 daemons with dependencies, ready checks, two that crash and
 * retry, a log flood, a watched daemon and a cron job; and the checks made after each kill (which
 * daemon processes live, which the supervisor tracks, which flood lines it stored).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { stateOnDisk } from "../../src/state/stateFile.js"
import { apiGet, type DaemonEntry, isAlive, processesOf, storedLogs } from "../e2e/harness.js"

export const NAMESPACE = "kp"

/** Every daemon of the project, by short name. */
export const DAEMONS = [
  "db",
  "cache",
  "queue",
  "api",
  "worker1",
  "worker2",
  "worker3",
  "web",
  "search",
  "mail",
  "metrics",
  "auth",
  "billing",
  "admin",
  "static",
  "crashy1",
  "crashy2",
  "flood",
  "watched",
  "cron",
] as const

/** A long-running daemon: records its pid in pids/<name>.<pid>, says it is up, then sleeps. */
const plain = (name: string, extra: ReadonlyArray<string> = []): string =>
  [`[daemons.${name}]`, `run = "exec sh d.sh ${name}"`, ...extra, ""].join("\n")

export const CONFIG = [
  `namespace = "${NAMESPACE}"`,
  "",
  plain("db", ['ready_output = "^db up$"']),
  plain("cache", ['ready_cmd = "test -d pids"']),
  plain("queue", ["ready_delay = 0.2", 'depends = ["db"]']),
  plain("api", ['ready_output = "^api up$"', 'depends = ["db", "cache"]']),
  plain("worker1", ["ready_delay = 0.1", 'depends = ["queue"]']),
  plain("worker2", ["ready_delay = 0.1", 'depends = ["queue"]']),
  plain("worker3", ["ready_delay = 0.1", 'depends = ["queue", "cache"]']),
  plain("web", ["ready_delay = 0.1", 'depends = ["api"]']),
  plain("search", ['ready_cmd = "true"', 'depends = ["db"]']),
  plain("mail", ["ready_delay = 0"]),
  plain("metrics", ["ready_delay = 0"]),
  plain("auth", ['ready_output = "^auth up$"', 'depends = ["db"]']),
  plain("billing", ["ready_delay = 0.1", 'depends = ["auth", "queue"]']),
  plain("admin", ["ready_delay = 0", 'depends = ["web", "auth"]']),
  plain("static", ["ready_delay = 0"]),
  // crash 0.2 s after start, forever retried with the 1 s, 2 s, 4 s ... backoff
  '[daemons.crashy1]\nrun = "sh crash.sh crashy1"\nready_delay = 0\nretry = true\n',
  '[daemons.crashy2]\nrun = "sh crash.sh crashy2"\nready_delay = 0\nretry = true\n',
  '[daemons.flood]\nrun = "exec node flood.cjs"\nready_delay = 0\n',
  plain("watched", ["ready_delay = 0", 'watch = ["watched.txt"]']),
  '[daemons.cron]\nrun = "sh cron.sh"\nready_delay = 0\ncron = "* * * * * *"\n',
].join("\n")

export const D_SH = `echo $$ > "pids/$1.$$"
echo "$1 up"
exec sleep 300
`
const CRASH_SH = `echo $$ > "pids/$1.$$"
sleep 0.2
exit 1
`
const CRON_SH = `echo $$ > "pids/cron.$$"
sleep 0.3
`
/**
 * Writes numbered lines "flood <pid> <n>": one now and then, and 6000 as fast as it can once
 * flood.go appears. After each burst, flood-last.<pid> holds the last number written.
 */
const FLOOD_CJS = `const fs = require("node:fs")
const pid = process.pid
fs.writeFileSync("pids/flood." + pid, String(pid))
let n = 0
let owed = 0
let tick = 0
const burst = (k) => {
  let text = ""
  for (let i = 0; i < k; i++) text += "flood " + pid + " " + ++n + "\\n"
  fs.writeSync(1, text)
  fs.writeFileSync("flood-last." + pid, String(n))
}
setInterval(() => {
  if (owed === 0 && fs.existsSync("flood.go")) {
    try { fs.unlinkSync("flood.go") } catch {}
    owed = 6000
  }
  if (owed > 0) {
    const k = Math.min(300, owed)
    owed -= k
    burst(k)
  } else if (++tick % 10 === 0) burst(1)
}, 5)
`

export const FILES: Record<string, string> = {
  "supervisor.toml": CONFIG,
  "d.sh": D_SH,
  "crash.sh": CRASH_SH,
  "cron.sh": CRON_SH,
  "flood.cjs": FLOOD_CJS,
  "watched.txt": "0\n",
}

const readProc = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8")
  } catch {
    return undefined
  }
}

const daemonIdOf = (pid: number): string | undefined =>
  (readProc(pid, "environ") ?? "")
    .split("\0")
    .find((kv) => kv.startsWith("SUPERVISOR_DAEMON_ID="))
    ?.slice("SUPERVISOR_DAEMON_ID=".length)

const parentOf = (pid: number): number | undefined => {
  const stat = readProc(pid, "stat")
  if (stat === undefined) return undefined
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

/**
 * The top process of each daemon's live tree, from /proc: a live process whose environment names
 * the daemon and whose parent does not (a daemon's shell's children share its environment).
 */
export const daemonRoots = (stateDir: string): Map<string, Array<number>> => {
  const ids = new Map<number, string>()
  for (const pid of processesOf(stateDir)) {
    const id = daemonIdOf(pid)
    if (id !== undefined) ids.set(pid, id)
  }
  const roots = new Map<string, Array<number>>()
  for (const [pid, id] of ids) {
    const parent = parentOf(pid)
    if (parent !== undefined && ids.get(parent) === id) continue
    roots.set(id, [...(roots.get(id) ?? []), pid])
  }
  return roots
}

/** Live processes per daemon that recorded themselves in pids/ (a second copy shows as two). */
export const recordedLive = (projectDir: string, namespace = NAMESPACE): Map<string, Array<number>> => {
  const out = new Map<string, Array<number>>()
  for (const f of readdirSync(join(projectDir, "pids"))) {
    const m = /^(.+)\.(\d+)$/.exec(f)
    if (m === null) continue
    const pid = Number(m[2])
    const id = `${namespace}/${m[1]}`
    // the pid may have been reused by another process: it must still be this daemon's
    if (!isAlive(pid) || daemonIdOf(pid) !== id) continue
    out.set(id, [...(out.get(id) ?? []), pid])
  }
  return out
}

export interface Snapshot {
  /** What is wrong; empty when every live daemon is tracked once. */
  readonly problems: ReadonlyArray<string>
  /** Daemon id -> the pid the supervisor tracks. */
  readonly tracked: ReadonlyMap<string, number>
}

/** Compares the live daemon processes against the supervisor's daemon list. */
export const snapshot = async (
  stateDir: string,
  projectDir: string,
  namespace = NAMESPACE,
): Promise<Snapshot> => {
  const entries = await apiGet<Array<DaemonEntry>>(stateDir, "/api/daemons")
  if (entries === undefined) return { problems: ["the supervisor does not answer"], tracked: new Map() }
  const tracked = new Map<string, number>()
  for (const e of entries) if (e.pid !== null) tracked.set(e.id.qualified, e.pid)
  const problems: Array<string> = []
  for (const [id, pids] of daemonRoots(stateDir)) {
    if (pids.length > 1) problems.push(`${id}: ${pids.length} live process trees (${pids.join(", ")})`)
    for (const pid of pids)
      if (tracked.get(id) !== pid)
        problems.push(`${id}: pid ${pid} is alive but untracked (tracked: ${tracked.get(id) ?? "none"})`)
  }
  for (const [id, pids] of recordedLive(projectDir, namespace))
    if (pids.length > 1) problems.push(`${id}: ${pids.length} live copies (${pids.join(", ")})`)
  return { problems, tracked }
}

/**
 * Checks the flood's stored lines: for each run of the flood (a pid), the lines 1..n with no gap
 * and none twice, n at least the last number it recorded. Returns the problems and, per pid, how
 * many lines were verified. `done` pids (dead and verified before) are skipped.
 */
export const checkFlood = async (
  stateDir: string,
  projectDir: string,
  done: Map<number, number>,
): Promise<{ problems: Array<string>; verified: Map<number, number> }> => {
  const lasts = new Map<number, number>()
  for (const f of readdirSync(projectDir)) {
    const m = /^flood-last\.(\d+)$/.exec(f)
    if (m === null || done.has(Number(m[1]))) continue
    const text = readFileSync(join(projectDir, f), "utf8")
    // a side file caught mid-write reads empty: the next check reads it whole
    if (text !== "") lasts.set(Number(m[1]), Number(text))
  }
  const verified = new Map<number, number>()
  if (lasts.size === 0) return { problems: [], verified }
  const lines = await storedLogs(stateDir, `${NAMESPACE}/flood`, 10_000_000)
  const seen = new Map<number, Array<number>>()
  for (const l of lines) {
    const m = /^flood (\d+) (\d+)$/.exec(l.message)
    if (m === null) continue
    const pid = Number(m[1])
    if (!lasts.has(pid)) continue
    seen.set(pid, [...(seen.get(pid) ?? []), Number(m[2])])
  }
  const problems: Array<string> = []
  for (const [pid, last] of lasts) {
    const ns = seen.get(pid) ?? []
    const bad = ns.findIndex((n, i) => n !== i + 1)
    if (bad >= 0) problems.push(`flood ${pid}: line ${bad + 1} is number ${ns[bad]} (a gap or a repeat)`)
    else if (ns.length < last) problems.push(`flood ${pid}: ${ns.length} lines stored, it wrote ${last}`)
    else verified.set(pid, ns.length)
  }
  return { problems, verified }
}

/** The state file and its journal load as the supervisor's state, with nothing set aside or ignored. */
export const stateFileLoads = (stateDir: string): string | undefined => {
  const file = join(stateDir, "state.json")
  if (!existsSync(file)) return undefined
  const read = stateOnDisk(file)
  if (read._tag !== "Loaded") return `state.json does not load (${read._tag})`
  return read.journalIgnored ? "state.json.journal holds records that do not decode" : undefined
}
