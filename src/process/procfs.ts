import * as fs from "node:fs"

/**
 * Reading Linux `/proc`. Plain synchronous functions: every read is a few microseconds of
 * kernel-generated text, and a process that vanishes mid-read is an answer (`undefined`), not an error.
 */

/** The fields of `/proc/<pid>/stat` we use (proc(5) numbers them from 1). */
export interface ProcStat {
  readonly pid: number
  /** Field 2 without its parentheses; may itself contain spaces and parentheses. */
  readonly comm: string
  /** Field 3: R, S, D, Z, T, t, I, X, ... */
  readonly state: string
  /** Field 4 */
  readonly ppid: number
  /** Field 5: the process group ID */
  readonly pgrp: number
  /** Field 6: the session ID */
  readonly session: number
  /** Field 14, in clock ticks */
  readonly utime: number
  /** Field 15, in clock ticks */
  readonly stime: number
  /** Field 20 */
  readonly numThreads: number
  /** Field 22: start time in clock ticks since boot, kept as the kernel wrote it. */
  readonly startTime: string
  /** Field 23, in bytes */
  readonly vsize: number
  /** Field 24, the resident set in pages (`PAGE_SIZE`) */
  readonly rss: number
}

/** `sysconf(_SC_CLK_TCK)`: USER_HZ is 100 on every Linux architecture Node supports. */
export const CLOCK_TICKS_PER_SECOND = 100
export const PAGE_SIZE = 4096

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13

/** Up to `count` whitespace-separated fields of `line` from `from`. */
const fieldsAfter = (line: string, from: number, count: number): Array<string> => {
  const out: Array<string> = []
  const n = line.length
  let i = from
  while (out.length < count) {
    while (i < n && isSpace(line.charCodeAt(i))) i++
    if (i >= n) break
    let j = i
    while (j < n && !isSpace(line.charCodeAt(j))) j++
    out.push(line.slice(i, j))
    i = j
  }
  return out
}

/**
 * Parses one `/proc/<pid>/stat` line. The comm field is the only one that can contain spaces or
 * parentheses (a process may name itself `a) b`), so it runs from the first `(` to the LAST `)`.
 */
export const parseStat = (line: string): ProcStat | undefined => {
  const open = line.indexOf("(")
  const close = line.lastIndexOf(")")
  if (open < 1 || close < open) return undefined
  const pid = Number(line.slice(0, open).trim())
  // rest[0] is field 3, so field n is rest[n - 3]; fields past 24 are not read (a pass reads this
  // line for every process: no split of its ~50 fields)
  const rest = fieldsAfter(line, close + 1, 22)
  if (!Number.isInteger(pid) || rest.length < 22) return undefined
  const field = (n: number): string => rest[n - 3] ?? ""
  const int = (n: number): number => Number(field(n))
  const stat: ProcStat = {
    pid,
    comm: line.slice(open + 1, close),
    state: field(3),
    ppid: int(4),
    pgrp: int(5),
    session: int(6),
    utime: int(14),
    stime: int(15),
    numThreads: int(20),
    startTime: field(22),
    vsize: int(23),
    rss: int(24),
  }
  const numbers = [
    stat.ppid,
    stat.pgrp,
    stat.session,
    stat.utime,
    stat.stime,
    stat.numThreads,
    stat.vsize,
    stat.rss,
  ]
  return numbers.every(Number.isFinite) && /^\d+$/.test(stat.startTime) ? stat : undefined
}

/** A `/proc` file's text; `undefined` when it is gone or unreadable. */
export const readText = (path: string): string | undefined => {
  try {
    return fs.readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** One buffer for every stat line: a line is well under 4 KiB (52 numbers and a 16-byte name). */
const statBuffer = Buffer.alloc(4096)

/**
 * A `/proc` file's text read with one `read` into a shared buffer (open, read, close: two system
 * calls fewer than `readFileSync`, and no buffer per file); `undefined` when it is gone.
 */
const readSmall = (path: string): string | undefined => {
  let fd: number
  try {
    fd = fs.openSync(path, "r")
  } catch {
    return undefined
  }
  try {
    const n = fs.readSync(fd, statBuffer, 0, statBuffer.length, 0)
    return n < statBuffer.length ? statBuffer.toString("utf8", 0, n) : readText(path)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** `undefined` when the process does not exist (any more). */
export const readStat = (pid: number): ProcStat | undefined => {
  const text = readSmall(`/proc/${pid}/stat`)
  return text === undefined ? undefined : parseStat(text)
}

/** A zombie (Z) or dead (X) process has exited; only its parent's wait() is missing. */
export const isExitedState = (state: string): boolean => state === "Z" || state === "X"

/** Every pid that has a `/proc` entry right now. */
export const listPids = (): ReadonlyArray<number> => {
  try {
    return fs
      .readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
  } catch {
    return []
  }
}

/** Stats of every process; processes that exit during the scan are skipped. */
export const readAllStats = (): ReadonlyArray<ProcStat> =>
  listPids().flatMap((pid) => {
    const stat = readStat(pid)
    return stat ? [stat] : []
  })

/** `/proc/<pid>/statm` in bytes: total program size and resident set. Zero when unreadable. */
export const readMemory = (
  pid: number,
): { readonly virtualBytes: number; readonly residentBytes: number } => {
  const [size, resident] = (readText(`/proc/${pid}/statm`) ?? "").trim().split(/\s+/).map(Number)
  return {
    virtualBytes: Number.isFinite(size) ? (size ?? 0) * PAGE_SIZE : 0,
    residentBytes: Number.isFinite(resident) ? (resident ?? 0) * PAGE_SIZE : 0,
  }
}

/** The executable path; "" when not permitted (another user's process) or for kernel threads. */
export const readExe = (pid: number): string => {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`)
  } catch {
    return ""
  }
}

/** Seconds since boot, from `/proc/uptime`. */
export const readSystemUptime = (): number => {
  const seconds = Number((readText("/proc/uptime") ?? "").split(/\s+/)[0])
  return Number.isFinite(seconds) ? seconds : 0
}

const STATE_NAMES: Readonly<Record<string, string>> = {
  R: "Run",
  S: "Sleep",
  D: "Disk",
  Z: "Zombie",
  T: "Stop",
  t: "Tracing",
  I: "Idle",
  X: "Dead",
  x: "Dead",
  W: "Waking",
  K: "Wakekill",
  P: "Parked",
}

/** The API's name of a `/proc` state letter. */
export const stateName = (state: string): string => STATE_NAMES[state] ?? "Unknown"

/** How long a process has run (seconds) and what share of one core it used over that time (unrounded). */
export const lifetimeCpu = (
  stat: Pick<ProcStat, "utime" | "stime" | "startTime">,
  systemUptimeSecs: number,
): { readonly uptimeSecs: number; readonly cpuPercent: number } => {
  const uptimeSecs = Math.max(0, systemUptimeSecs - Number(stat.startTime) / CLOCK_TICKS_PER_SECOND)
  const cpuSecs = (stat.utime + stat.stime) / CLOCK_TICKS_PER_SECOND
  return { uptimeSecs, cpuPercent: uptimeSecs > 0 ? (cpuSecs / uptimeSecs) * 100 : 0 }
}

/** How long a process has run and what share of one core it used over that time. */
export const cpuUsage = (
  stat: Pick<ProcStat, "utime" | "stime" | "startTime">,
  systemUptimeSecs: number,
): { readonly uptimeSecs: number; readonly cpuPercent: number } => {
  const { uptimeSecs, cpuPercent } = lifetimeCpu(stat, systemUptimeSecs)
  return { uptimeSecs, cpuPercent: Math.round(cpuPercent * 100) / 100 }
}
