import { Context, Effect, Layer } from "effect"
import {
  CLOCK_TICKS_PER_SECOND,
  listPids,
  PAGE_SIZE,
  type ProcStat,
  readStat as procStat,
} from "../../process/procfs.js"

/** One process of a sampled tree: `key` names it across samples (pid and start time). */
export interface TreeProcess {
  readonly pid: number
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
        pid: p.pid,
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

/**
 * Reads `/proc` once per call for every root. Only the first pass (and one after the roots
 * change) reads every process: later passes skip the pids that were in no tree the last time,
 * since a process never becomes a descendant of a daemon it was not one of (orphans go to init),
 * while every process born since, and every tree member, is read again.
 */
export const makeProcScanner = (
  source: {
    readonly listPids: () => ReadonlyArray<number>
    readonly readStat: (pid: number) => ProcStat | undefined
  } = { listPids, readStat: procStat },
) => {
  let rootsKey = ""
  let outside = new Set<number>()
  return (roots: ReadonlyArray<number>): ReadonlyMap<number, TreeSample> => {
    if (roots.length === 0) return new Map()
    const key = [...roots].sort((a, b) => a - b).join(",")
    if (key !== rootsKey) outside = new Set()
    rootsKey = key
    const pids = source.listPids()
    const stats: Array<ProcStat> = []
    for (const pid of pids)
      if (!outside.has(pid)) {
        const stat = source.readStat(pid)
        if (stat !== undefined) stats.push(stat)
      }
    const trees = treesOf(stats, roots)
    const inTrees = new Set<number>()
    for (const tree of trees.values()) for (const p of tree.processes) inTrees.add(p.pid)
    const next = new Set<number>()
    for (const pid of pids) if (outside.has(pid)) next.add(pid)
    for (const stat of stats) if (!inTrees.has(stat.pid)) next.add(stat.pid)
    outside = next
    return trees
  }
}

/** The scanner of the supervisor: one `/proc` pass per call, for every root at once. */
export const TreeSamplerLive = Layer.sync(TreeSampler, () => {
  const scan = makeProcScanner()
  return { sample: (roots) => Effect.sync(() => scan(roots)) }
})
