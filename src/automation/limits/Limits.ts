import { Clock, Context, Duration, Effect, FiberSet, Layer, Stream } from "effect"
import { Control } from "../../control/Control.js"
import { Kill } from "../../domain/Command.js"
import type { Settings } from "../../domain/Settings.js"
import { ProcessSampler, SAMPLE_FRESH, type TreeUsage } from "../../process/ProcessSampler.js"
import { LiveSettings } from "../../registry/liveSettings.js"
import type { DaemonState } from "../../supervisor/DaemonState.js"
import { Supervisor } from "../../supervisor/Supervisor.js"
import { cpuMessage, memoryMessage } from "./format.js"

/** What the checks remember of a daemon's run between two samples. */
interface RunSample {
  readonly pid: number
  readonly startTime: string | null
  /** Clock millis of the sampler's pass. */
  readonly at: number
  /** CPU seconds of each process of the tree then (by `TreeProcess.key`). */
  readonly cpu: ReadonlyMap<string, number>
  /** Samples in a row above `cpu_limit`, this one included. */
  readonly violations: number
}

/** The verdict of one sample: the kill message, or nothing. */
type Verdict = string | undefined

export interface LimitsShape {
  /** One limit check now: samples every limited daemon's tree (one `/proc` pass) and kills what is over. */
  readonly check: Effect.Effect<void>
}

/** The memory and CPU limits of the daemons (docs/limits.md), checked at every `general.interval`. */
export class Limits extends Context.Tag("supervisor/Limits")<Limits, LimitsShape>() {}

/** A daemon the checks look at: it has a process (not stopping) and a limit. */
const isLimited = (r: DaemonState): boolean =>
  (r.status.type === "running" || r.status.type === "unhealthy" || r.status.type === "waiting") &&
  r.pid !== null &&
  (r.def.config.memory_limit !== undefined || r.def.config.cpu_limit !== undefined)

/** CPU % of one core used by the tree since `before` (processes new since then count whole). */
const cpuPercentSince = (before: RunSample, tree: TreeUsage): number => {
  let seconds = 0
  for (const p of tree.processes) seconds += Math.max(0, p.cpuSeconds - (before.cpu.get(p.key) ?? 0))
  return (seconds / ((tree.at - before.at) / 1000)) * 100
}

const intervalMillis = (s: Settings) => Duration.toMillis(Duration.decode(s.general.interval))

export const LimitsLive = Layer.scoped(
  Limits,
  Effect.gen(function* () {
    const supervisor = yield* Supervisor
    const control = yield* Control
    const settings = yield* LiveSettings
    const sampler = yield* ProcessSampler
    const kills = yield* FiberSet.make<void, never>()
    const runs = new Map<string, RunSample>()
    /** Daemons being killed: never killed twice for the same excess. */
    const killing = new Set<string>()

    const judge = (r: DaemonState, tree: TreeUsage, threshold: number): Verdict => {
      const id = r.def.id.qualified
      const { memory_limit, cpu_limit } = r.def.config
      const before = runs.get(id)
      const same = before !== undefined && before.pid === r.pid && before.startTime === r.startTime
      // the same pass as last time (none newer yet): nothing new to count
      if (same && tree.at <= before.at)
        return memory_limit !== undefined && tree.memoryBytes > memory_limit
          ? memoryMessage(tree.memoryBytes, memory_limit)
          : undefined
      const percent = same ? cpuPercentSince(before, tree) : undefined
      const over = cpu_limit !== undefined && percent !== undefined && percent > cpu_limit
      const violations = over ? (same ? before.violations : 0) + 1 : 0
      runs.set(id, {
        pid: r.pid as number,
        startTime: r.startTime,
        at: tree.at,
        cpu: new Map(tree.processes.map((p) => [p.key, p.cpuSeconds])),
        violations,
      })
      if (memory_limit !== undefined && tree.memoryBytes > memory_limit)
        return memoryMessage(tree.memoryBytes, memory_limit)
      if (cpu_limit !== undefined && percent !== undefined && violations >= threshold)
        return cpuMessage(percent, cpu_limit, violations)
      return undefined
    }

    /**
     * Marked as being killed at once (not when the fiber starts): the next tick skips it. A `Kill`
     * command with the sampled `pid`: a run that replaced it meanwhile is left alone.
     */
    const kill = (id: string, pid: number, message: string) => {
      killing.add(id)
      runs.delete(id)
      return FiberSet.run(
        kills,
        control
          .handle(new Kill({ id, message, pid, reason: "limit" }))
          .pipe(Effect.ignore, Effect.ensuring(Effect.sync(() => killing.delete(id)))),
      )
    }

    const check = Effect.gen(function* () {
      const limited = (yield* supervisor.list).filter((r) => isLimited(r) && !killing.has(r.def.id.qualified))
      const ids = new Set(limited.map((r) => r.def.id.qualified))
      for (const id of runs.keys()) if (!ids.has(id)) runs.delete(id)
      if (limited.length === 0) return
      const current = yield* settings.current
      const threshold = current.supervisor.cpu_violation_threshold
      // the shared pass when it is recent: windows of at least half an interval, never stale
      const trees = yield* sampler.sample(
        limited.map((r) => r.pid as number),
        { maxAge: Math.min(Duration.toMillis(SAMPLE_FRESH), intervalMillis(current) / 2) },
      )
      for (const r of limited) {
        const tree = trees.get(r.pid as number)
        if (tree === undefined) continue
        const message = judge(r, tree, threshold)
        // the kill waits for the group to exit: the next daemons are checked meanwhile
        if (message !== undefined) yield* kill(r.def.id.qualified, r.pid as number, message)
      }
    })

    /**
     * A check every `general.interval` after the one before, as the settings say now: a change of
     * the interval re-times the wait from the last check. The stream is built once (built at
     * every tick, it cost an idle supervisor 6-10 ms of CPU every 10 s); a check is not cut short
     * by a change, the next wait is.
     */
    let last = yield* Clock.currentTimeMillis
    const every = (millis: number): Effect.Effect<never> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Math.max(0, last + millis - now))).pipe(
        Effect.zipRight(Effect.uninterruptible(check)),
        Effect.zipRight(Clock.currentTimeMillis),
        Effect.flatMap((now) =>
          Effect.sync(() => {
            last = now
          }),
        ),
        Effect.forever,
      )
    yield* settings.changes.pipe(
      Stream.map(intervalMillis),
      Stream.changes,
      Stream.flatMap((millis) => Stream.fromEffect(every(millis)), { switch: true }),
      Stream.runDrain,
      Effect.forkScoped,
    )
    return { check }
  }),
)
