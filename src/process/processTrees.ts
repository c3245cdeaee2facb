/** What one `/proc` pass knows of a process (seconds and bytes, whatever the source). */
export interface ProcessReading {
  readonly pid: number
  readonly ppid: number
  /** The process group ID */
  readonly pgrp: number
  /** With the pid, names the process across passes (a pid can be reused). */
  readonly startTime: string
  /** CPU time it has used since it started (user + system), in seconds. */
  readonly cpuSeconds: number
  readonly memoryBytes: number
  /** Its CPU time over its lifetime, in percent of one core. */
  readonly lifetimeCpuPercent: number
}

/** One process of a sampled tree: `key` names it across samples (pid and start time). */
export interface TreeProcess {
  readonly pid: number
  readonly key: string
  /** CPU time it has used since it started (user + system), in seconds. */
  readonly cpuSeconds: number
  /** Its CPU time over its lifetime, in percent of one core. */
  readonly lifetimeCpuPercent: number
}

/** A daemon's process tree at one instant: the root and every descendant. */
export interface TreeSample {
  /** Resident memory summed over the tree, in bytes. */
  readonly memoryBytes: number
  readonly processes: ReadonlyArray<TreeProcess>
}

export const processKey = (p: Pick<ProcessReading, "pid" | "startTime">): string => `${p.pid}:${p.startTime}`

/**
 * The trees rooted at `roots` in one list of readings: a root's tree is its descendants (by parent
 * pid) and the members of its process group (a daemon is its group's leader), each counted once.
 * A root that is gone has no entry.
 */
export const treesOf = (
  readings: ReadonlyArray<ProcessReading>,
  roots: ReadonlyArray<number>,
): ReadonlyMap<number, TreeSample> => {
  const byPid = new Map<number, ProcessReading>()
  const children = new Map<number, Array<ProcessReading>>()
  const groups = new Map<number, Array<ProcessReading>>()
  for (const s of readings) {
    byPid.set(s.pid, s)
    const siblings = children.get(s.ppid)
    if (siblings) siblings.push(s)
    else children.set(s.ppid, [s])
    const members = groups.get(s.pgrp)
    if (members) members.push(s)
    else groups.set(s.pgrp, [s])
  }
  const out = new Map<number, TreeSample>()
  for (const root of roots) {
    const top = byPid.get(root)
    if (top === undefined) continue
    const seen = new Map<number, ProcessReading>([[root, top]])
    const pending = [top, ...(groups.get(root) ?? [])]
    while (pending.length > 0) {
      const p = pending.pop() as ProcessReading
      seen.set(p.pid, p)
      for (const c of children.get(p.pid) ?? []) if (!seen.has(c.pid)) pending.push(c)
    }
    let memoryBytes = 0
    const processes: Array<TreeProcess> = []
    for (const p of seen.values()) {
      memoryBytes += p.memoryBytes
      processes.push({
        pid: p.pid,
        key: processKey(p),
        cpuSeconds: p.cpuSeconds,
        lifetimeCpuPercent: p.lifetimeCpuPercent,
      })
    }
    out.set(root, { memoryBytes, processes })
  }
  return out
}
