import { Clock, Context, Duration, Effect, Layer, PubSub, Queue, Stream } from "effect"
import type { DaemonUsageNow, UsageSampled } from "../../domain/SupervisorEvent.js"
import type { UsageHistoryResponse, UsageSample } from "../../domain/UsageHistory.js"
import { ProcessSampler, type TreeUsage } from "../../process/ProcessSampler.js"
import { type DaemonState, isActive } from "../../supervisor/DaemonState.js"
import { activePort } from "../../supervisor/resourceUsage.js"
import { Supervisor } from "../../supervisor/Supervisor.js"

/** Five seconds between samples, sixty kept: the last five minutes of each daemon. */
export const HISTORY_INTERVAL = Duration.seconds(5)
export const HISTORY_CAPACITY = 60
/** After a `GET /api/usage`, how long the history keeps sampling with no live stream open. */
export const HISTORY_ASKED_KEEP = Duration.minutes(1)

export interface UsageHistoryShape {
  /**
   * Samples every running daemon now (one /proc pass), forgets the daemons removed since, and
   * gives the sample to the live streams.
   */
  readonly sampleNow: Effect.Effect<UsageSampled>
  /** Every daemon's kept samples, oldest first, in ID order. */
  readonly snapshot: Effect.Effect<UsageHistoryResponse>
  /**
   * Each sample from now on (`GET /api/events?usage=true`): the web page's and the dashboard's
   * usage cells, pushed instead of polled. The history samples while such a stream is open.
   */
  readonly live: Stream.Stream<UsageSampled>
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
  // a reader that lags behind loses the older samples: only the latest matters
  const samples = yield* PubSub.sliding<UsageSampled>(2)

  /** A sample at the time of the sampler's pass (the last one kept when the pass is the one already recorded). */
  const record = (r: DaemonState, tree: TreeUsage): UsageSample | undefined => {
    const id = r.def.id.qualified
    const run = `${r.pid}:${r.startTime ?? ""}`
    const before = tracks.get(id)
    const now = tree.at
    if (before !== undefined && before.run === run && now <= before.at) return before.samples.at(-1)
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
    return sample
  }

  const sample = Effect.gen(function* () {
    const all = yield* sup.list
    const known = new Set(all.map((r) => r.def.id.qualified))
    for (const id of tracks.keys()) if (!known.has(id)) tracks.delete(id)
    const running = all.filter((r) => isActive(r) && r.pid !== null)
    let now = yield* Clock.currentTimeMillis
    const item = (daemons: ReadonlyArray<DaemonUsageNow>): UsageSampled => ({
      _tag: "UsageSampled",
      at: now,
      interval_ms: Duration.toMillis(HISTORY_INTERVAL),
      daemons,
    })
    if (running.length === 0) return item([])
    const trees = yield* sampler.sample(running.map((r) => r.pid as number))
    const listening = yield* sampler.listeningPorts(
      running.map((r) => trees.get(r.pid as number)?.processes.map((p) => p.pid) ?? []),
    )
    const daemons: Array<DaemonUsageNow> = []
    running.forEach((r, i) => {
      const tree = trees.get(r.pid as number)
      const kept = tree === undefined ? undefined : record(r, tree)
      if (tree === undefined || kept === undefined) return
      now = tree.at // the samples' time: the page adds the stream's sample after the history it fetched
      daemons.push({
        id: r.def.id.qualified,
        pid: r.pid as number,
        // the history's sample: what the sparklines draw
        cpu_percent: kept.cpu_percent,
        memory_bytes: tree.memoryBytes,
        active_port: activePort(r.ports, listening[i] ?? []),
        // as the listing has it: a run's start is wall-clock time
        uptime_secs: r.startedAt ? Math.max(0, Math.floor((Date.now() - r.startedAt) / 1000)) : 0,
      })
    })
    return item(daemons)
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
  const sampleNow = Effect.tap(sample, (item) => PubSub.publish(samples, item))
  /** The samples from now on (subscribed at once, in the caller's scope). */
  const subscribe = Effect.map(PubSub.subscribe(samples), (sub) => Stream.fromQueue(sub))
  return { sampleNow, snapshot, live: Stream.unwrapScoped(subscribe), subscribe }
})

/**
 * The history, sampled every HISTORY_INTERVAL while someone looks: a live stream is open, or
 * `GET /api/usage` was asked within HISTORY_ASKED_KEEP. A supervisor nobody watches reads
 * nothing for it (a pass over 200 daemons costs a few ms, docs/benchmarks.md).
 */
export const UsageHistoryLive = Layer.scoped(
  UsageHistory,
  Effect.gen(function* () {
    const history = yield* makeUsageHistory
    const wake = yield* Queue.sliding<void>(1)
    let watchers = 0
    let askedAt: number | undefined
    const wanted = (now: number) =>
      watchers > 0 || (askedAt !== undefined && now - askedAt < Duration.toMillis(HISTORY_ASKED_KEEP))
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          if (!wanted(yield* Clock.currentTimeMillis)) return yield* Queue.take(wake)
          yield* history.sampleNow
          yield* Effect.sleep(HISTORY_INTERVAL)
        }),
      ),
    )
    const ask = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        const idle = !wanted(now)
        askedAt = now
        if (idle) Queue.unsafeOffer(wake, undefined)
      }),
    )
    return {
      sampleNow: history.sampleNow,
      snapshot: Effect.zipRight(ask, history.snapshot),
      // subscribed before it counts as a watcher: the sample its arrival starts reaches it
      live: Stream.unwrapScoped(
        Effect.gen(function* () {
          const stream = yield* history.subscribe
          yield* Effect.acquireRelease(
            Effect.sync(() => {
              watchers += 1
              if (watchers === 1) Queue.unsafeOffer(wake, undefined)
            }),
            () =>
              Effect.sync(() => {
                watchers -= 1
              }),
          )
          return stream
        }),
      ),
    } satisfies UsageHistoryShape
  }),
)
