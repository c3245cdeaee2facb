import { Context, Deferred, Duration, Effect, Layer, Schedule } from "effect"
import type { UsageHistoryResponse, UsageSample } from "../../domain/UsageHistory.js"
import { ProcessSampler, type TreeUsage } from "../../process/ProcessSampler.js"
import { type DaemonState, isActive } from "../../supervisor/DaemonState.js"
import { Supervisor } from "../../supervisor/Supervisor.js"

/** Two seconds between samples, sixty kept: the last two minutes of each daemon. */
export const HISTORY_INTERVAL = Duration.seconds(2)
export const HISTORY_CAPACITY = 60

export interface UsageHistoryShape {
  /** Samples every running daemon now (one /proc pass) and forgets the daemons removed since. */
  readonly sampleNow: Effect.Effect<void>
  /** Every daemon's kept samples, oldest first, in ID order. */
  readonly snapshot: Effect.Effect<UsageHistoryResponse>
}

/** The recent CPU and memory of each daemon, for the web page's sparklines (`GET /api/usage`). */
export class UsageHistory extends Context.Tag("supervisor/UsageHistory")<UsageHistory, UsageHistoryShape>() {}

/** What one daemon's history holds: its samples and the CPU seconds of the last one's tree. */
interface Track {
  readonly samples: Array<UsageSample>
  /** The run the CPU seconds belong to (pid and start time): a new run starts a new delta. */
  run: string
  at: number
  cpu: ReadonlyMap<string, number>
}

/** CPU % of one core since the previous sample of the same run (new processes count whole); 0 for a first one. */
const cpuPercent = (track: Track | undefined, run: string, tree: TreeUsage, now: number): number => {
  if (track === undefined || track.run !== run || now <= track.at) return 0
  let seconds = 0
  for (const p of tree.processes) seconds += Math.max(0, p.cpuSeconds - (track.cpu.get(p.key) ?? 0))
  return Math.round(((seconds * 1000) / (now - track.at)) * 100 * 10) / 10
}

/** The history without its loop: `sampleNow` is called by the loop of `UsageHistoryLive` (or a test). */
export const makeUsageHistory = Effect.gen(function* () {
  const sup = yield* Supervisor
  const sampler = yield* ProcessSampler
  const tracks = new Map<string, Track>()

  /** A sample at the time of the sampler's pass; none when the pass is the one already recorded. */
  const record = (r: DaemonState, tree: TreeUsage) => {
    const id = r.def.id.qualified
    const run = `${r.pid}:${r.startTime ?? ""}`
    const before = tracks.get(id)
    const now = tree.at
    if (before !== undefined && before.run === run && now <= before.at) return
    const sample = {
      at: now,
      cpu_percent: cpuPercent(before, run, tree, now),
      memory_bytes: tree.memoryBytes,
    }
    const track: Track = before ?? { samples: [], run, at: now, cpu: new Map() }
    track.samples.push(sample)
    if (track.samples.length > HISTORY_CAPACITY)
      track.samples.splice(0, track.samples.length - HISTORY_CAPACITY)
    track.run = run
    track.at = now
    track.cpu = new Map(tree.processes.map((p) => [p.key, p.cpuSeconds]))
    tracks.set(id, track)
  }

  const sampleNow = Effect.gen(function* () {
    const all = yield* sup.list
    const known = new Set(all.map((r) => r.def.id.qualified))
    for (const id of tracks.keys()) if (!known.has(id)) tracks.delete(id)
    const running = all.filter((r) => isActive(r) && r.pid !== null)
    if (running.length === 0) return
    const trees = yield* sampler.sample(running.map((r) => r.pid as number))
    for (const r of running) {
      const tree = trees.get(r.pid as number)
      if (tree !== undefined) record(r, tree)
    }
  })

  const snapshot = Effect.sync(
    (): UsageHistoryResponse => ({
      interval_ms: Duration.toMillis(HISTORY_INTERVAL),
      capacity: HISTORY_CAPACITY,
      daemons: [...tracks.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, t]) => ({ id, samples: t.samples.slice() })),
    }),
  )
  return { sampleNow, snapshot } satisfies UsageHistoryShape
})

/**
 * The history, sampled every HISTORY_INTERVAL from the first time it is asked for (the web page
 * asks at once) for as long as the supervisor runs: a supervisor nobody watches spends nothing
 * on it (a pass is about 3 ms for 50 daemons, docs/benchmarks.md).
 */
export const UsageHistoryLive = Layer.scoped(
  UsageHistory,
  Effect.gen(function* () {
    const history = yield* makeUsageHistory
    const asked = yield* Deferred.make<void>()
    yield* Effect.forkScoped(
      Deferred.await(asked).pipe(
        Effect.zipRight(Effect.repeat(history.sampleNow, Schedule.spaced(HISTORY_INTERVAL))),
      ),
    )
    return {
      sampleNow: history.sampleNow,
      snapshot: Effect.zipRight(Deferred.succeed(asked, undefined), history.snapshot),
    } satisfies UsageHistoryShape
  }),
)
