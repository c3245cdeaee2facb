/**
 * What the fault suites read from /proc about a supervisor and its daemons: the members of a
 * process group or session, a process's open file descriptors and resident memory.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

interface Stat {
  readonly pid: number
  readonly state: string
  readonly ppid: number
  readonly pgrp: number
  readonly session: number
}

const statOf = (pid: number): Stat | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const [state, ppid, pgrp, session] = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { pid, state: state!, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session) }
  } catch {
    return undefined
  }
}

/** The process group of `pid`, undefined when there is no such process. */
export const pgrpOf = (pid: number): number | undefined => statOf(pid)?.pgrp

const allStats = (): Array<Stat> =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => statOf(Number(d)))
    .filter((s): s is Stat => s !== undefined && s.state !== "Z" && s.state !== "X")

/**
 * Live processes left of a daemon whose leader was `pid`: members of its process group or its
 * session, and descendants of any of them (a child that made a session of its own still counts).
 */
export const leftOf = (pid: number): Array<number> => {
  const stats = allStats()
  const found = new Set(stats.filter((s) => s.pgrp === pid || s.session === pid).map((s) => s.pid))
  for (let grew = true; grew; ) {
    grew = false
    for (const s of stats)
      if (!found.has(s.pid) && found.has(s.ppid)) {
        found.add(s.pid)
        grew = true
      }
  }
  return [...found]
}

/** How many file descriptors `pid` has open (`/proc/<pid>/fd`). */
export const fdCount = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length

/** What `pid`'s open descriptors point at, for a failure message. */
export const fdTargets = (pid: number): Array<string> =>
  readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return `${fd} -> ${readlinkSync(`/proc/${pid}/fd/${fd}`)}`
    } catch {
      return `${fd} -> (closed)`
    }
  })

/** Resident memory of `pid` in bytes (VmRSS), and its peak (VmHWM). */
export const memoryOf = (pid: number): { rss: number; peak: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024
  return { rss: kb("VmRSS"), peak: kb("VmHWM") }
}
