import { Clock, Context, Duration, Effect, Layer } from "effect"
import { type ProcessReading, processKey, type TreeSample, treesOf } from "./processTrees.js"
import { makeProcSource, type ProcSource } from "./procSource.js"

/** A daemon's process tree at the sampler's last pass, with the CPU figure every caller shares. */
export interface TreeUsage extends TreeSample {
  /** Clock millis of the pass it comes from: the end of a CPU window a caller measures itself. */
  readonly at: number
  /**
   * CPU use of the tree in percent of one core (0.1 steps): over the time since the sampler's
   * earlier pass that saw the same root (at least `SAMPLE_FRESH` before; processes new since then
   * count with all their CPU time), or over the processes' lifetimes on the root's first pass.
   */
  readonly cpuPercent: number
}

export interface ProcessSamplerShape {
  /**
   * The trees of `roots` from one `/proc` pass shared by every caller: the last pass when it is
   * younger than `maxAge` (default `SAMPLE_FRESH`) and covered these roots, else a new one.
   * Nothing is read for an empty list; a root that is gone has no entry.
   */
  readonly sample: (
    roots: ReadonlyArray<number>,
    options?: { readonly maxAge?: Duration.DurationInput },
  ) => Effect.Effect<ReadonlyMap<number, TreeUsage>>
  /** For each group of pids, the sorted TCP ports its members listen on (the socket table read once). */
  readonly listeningPorts: (
    groups: ReadonlyArray<ReadonlyArray<number>>,
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>>
}

/**
 * The one reader of daemons' process trees in `/proc`, for `list` and the API's usage columns,
 * the proxy, the limits, the usage history and the metrics. Live layer: `ProcessSamplerLive`;
 * test double: `makeFakeProcessSampler` (src/testing/FakeProcessSampler.ts).
 */
export class ProcessSampler extends Context.Tag("supervisor/ProcessSampler")<
  ProcessSampler,
  ProcessSamplerShape
>() {}

/** Processes read between two turns of the event loop in a pass. */
const PASS_SLICE = 64

/**
 * Lets the event loop run (I/O callbacks, timers) before the fiber goes on: a yield to Effect's
 * scheduler alone runs other fibers, not the I/O that would wake them.
 */
const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** A pass younger than this answers every caller; it is also the shortest CPU window. */
export const SAMPLE_FRESH = Duration.seconds(1)
/** A root nobody asked for in this long is no longer read in every pass. */
export const ROOT_KEPT = Duration.seconds(10)

interface Pass {
  readonly at: number
  readonly roots: ReadonlySet<number>
  /** Pids read last time that were in no tree: skipped while the roots stay (see `pass`). */
  readonly outside: ReadonlySet<number>
  readonly trees: ReadonlyMap<number, TreeUsage>
}

/** Where a root's CPU window starts: the pass's time and each process's CPU seconds then. */
interface Baseline {
  readonly at: number
  readonly cpu: ReadonlyMap<string, number>
  readonly percent: number
}

const round = (percent: number) => Math.max(0, Math.round(percent * 10) / 10)

/**
 * On demand with a short cache, not a ticking fiber: an idle supervisor (nobody listing, no
 * limits) reads `/proc` never, a busy one at most once per `SAMPLE_FRESH` whoever asks.
 */
export const makeProcessSampler = (source: ProcSource) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    const fresh = Duration.toMillis(SAMPLE_FRESH)
    const kept = Duration.toMillis(ROOT_KEPT)
    let last: Pass | undefined
    /** root -> when it was last asked for: every pass reads the roots asked for lately. */
    const asked = new Map<number, number>()
    /** root key (pid and start time) -> the start of its CPU window */
    let baselines = new Map<string, Baseline>()

    const cpuPercentOf = (tree: TreeSample, rootKey: string, now: number): number => {
      const kept = baselines.get(rootKey)
      // a clock that went back starts the window anew
      const before = kept !== undefined && kept.at <= now ? kept : undefined
      const cpu = new Map(tree.processes.map((p) => [p.key, p.cpuSeconds]))
      if (before !== undefined && now - before.at < fresh) return before.percent
      let percent: number
      if (before === undefined) {
        percent = 0
        for (const p of tree.processes) percent += p.lifetimeCpuPercent
      } else {
        let seconds = 0
        for (const p of tree.processes) seconds += Math.max(0, p.cpuSeconds - (before.cpu.get(p.key) ?? 0))
        percent = (seconds / ((now - before.at) / 1000)) * 100
      }
      percent = round(percent)
      baselines.set(rootKey, { at: now, cpu, percent })
      return percent
    }

    /**
     * One pass over `/proc`. Only the first pass (and one after a root appears that was read as
     * an outsider) reads every process: later passes skip the pids that were in no tree the last
     * time, since a process never becomes a descendant of a daemon it was not one of (orphans go
     * to init), while every process born since, and every tree member, is read again.
     */
    const pass = (roots: ReadonlyArray<number>, now: number): Effect.Effect<Pass> =>
      Effect.gen(function* () {
        for (const root of roots) asked.set(root, now)
        for (const [root, at] of asked) if (now - at >= kept) asked.delete(root)
        const passRoots = [...asked.keys()]
        const before = last
        const skip =
          before !== undefined && passRoots.every((r) => before.roots.has(r) || !before.outside.has(r))
            ? before.outside
            : new Set<number>()
        const pids = source.listPids()
        const read = source.reader()
        const readings: Array<ProcessReading> = []
        for (let i = 0; i < pids.length; i++) {
          const pid = pids[i]!
          if (!skip.has(pid)) {
            const reading = read(pid)
            if (reading !== undefined) readings.push(reading)
          }
          // 200 daemons are several ms of reading: the events due meanwhile go out in between
          if (i % PASS_SLICE === PASS_SLICE - 1) yield* yieldToEventLoop
        }
        const trees = treesOf(readings, passRoots)
        const inTrees = new Set<number>()
        for (const tree of trees.values()) for (const p of tree.processes) inTrees.add(p.pid)
        const outside = new Set<number>()
        for (const pid of pids) if (skip.has(pid)) outside.add(pid)
        for (const r of readings) if (!inTrees.has(r.pid)) outside.add(r.pid)
        const usage = new Map<number, TreeUsage>()
        const previous = baselines
        baselines = new Map()
        for (const root of passRoots) {
          const tree = trees.get(root)
          if (tree === undefined) {
            asked.delete(root) // gone: not read again until asked for again
            continue
          }
          const rootKey =
            tree.processes.find((p) => p.pid === root)?.key ?? processKey({ pid: root, startTime: "" })
          const start = previous.get(rootKey)
          if (start !== undefined) baselines.set(rootKey, start)
          usage.set(root, { ...tree, at: now, cpuPercent: cpuPercentOf(tree, rootKey, now) })
        }
        return { at: now, roots: new Set(passRoots), outside, trees: usage }
      })

    const sample: ProcessSamplerShape["sample"] = (roots, options) =>
      roots.length === 0
        ? Effect.succeed(new Map())
        : lock.withPermits(1)(
            Effect.gen(function* () {
              const now = yield* Clock.currentTimeMillis
              const cached = last
              const current =
                cached !== undefined &&
                cached.at <= now &&
                now - cached.at <
                  (options?.maxAge === undefined ? fresh : Duration.toMillis(options.maxAge)) &&
                roots.every((r) => cached.roots.has(r))
                  ? cached
                  : yield* pass(roots, now)
              last = current
              const out = new Map<number, TreeUsage>()
              for (const root of roots) {
                const tree = current.trees.get(root)
                if (tree !== undefined) out.set(root, tree)
              }
              return out
            }),
          )

    return {
      sample,
      listeningPorts: (groups) => Effect.sync(() => source.listeningPorts(groups)),
    } satisfies ProcessSamplerShape
  })

/** The supervisor's sampler, reading Linux `/proc`. */
export const ProcessSamplerLive: Layer.Layer<ProcessSampler> = Layer.effect(
  ProcessSampler,
  Effect.suspend(() => makeProcessSampler(makeProcSource())),
)
