import { Context, Effect, Layer } from "effect"
import { CLOCK_TICKS_PER_SECOND, PAGE_SIZE, type ProcStat, readAllStats } from "../../process/procfs.js"

/** One process of a sampled tree: `key` names it across samples (pid and start time). */
export interface TreeProcess {
  readonly key: string
  /** CPU time it has used since it started (user + system), in seconds. */
  readonly cpuSeconds: number
}

/** A daemon's process tree at one instant: the root and every descendant. */
export interface TreeSample {
  /** Resident memory summed over the tree, in bytes. */
  readonly memoryBytes: number
  readonly processes: ReadonlyArray<TreeProcess>
}

/**
 * The trees rooted at `roots` in one list of stats: a root's tree is its descendants (by parent
 * pid) and the members of its process group (a daemon is its group's leader), each counted once.
 * A root that is gone has no entry.
 */
export const treesOf = (
  stats: ReadonlyArray<ProcStat>,
  roots: ReadonlyArray<number>,
): ReadonlyMap<number, TreeSample> => {
  const byPid = new Map<number, ProcStat>()
  const children = new Map<number, Array<ProcStat>>()
  const groups = new Map<number, Array<ProcStat>>()
  for (const s of stats) {
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
    const seen = new Map<number, ProcStat>([[root, top]])
    const pending = [top, ...(groups.get(root) ?? [])]
    while (pending.length > 0) {
      const p = pending.pop() as ProcStat
      seen.set(p.pid, p)
      for (const c of children.get(p.pid) ?? []) if (!seen.has(c.pid)) pending.push(c)
    }
    let memoryBytes = 0
    const processes: Array<TreeProcess> = []
    for (const p of seen.values()) {
      memoryBytes += p.rss * PAGE_SIZE
      processes.push({
        key: `${p.pid}:${p.startTime}`,
        cpuSeconds: (p.utime + p.stime) / CLOCK_TICKS_PER_SECOND,
      })
    }
    out.set(root, { memoryBytes, processes })
  }
  return out
}

export interface TreeSamplerShape {
  /** The process trees of `roots`, read in one pass (nothing is read for an empty list). */
  readonly sample: (roots: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, TreeSample>>
}

/** Samples daemons' process trees for the limit checks (`/proc` in the supervisor; a fake in tests). */
export class TreeSampler extends Context.Tag("supervisor/TreeSampler")<TreeSampler, TreeSamplerShape>() {}

/** One read of `/proc` per call, for every root at once. */
export const TreeSamplerLive = Layer.succeed(TreeSampler, {
  sample: (roots) =>
    Effect.sync(() => (roots.length === 0 ? new Map<number, TreeSample>() : treesOf(readAllStats(), roots))),
})
