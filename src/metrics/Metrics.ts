import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks"
import { Context, Effect, Layer, Option } from "effect"
import { isActive } from "../domain/DaemonStatus.js"
import { LogStore } from "../logs/LogStore.js"
import { ProcessSampler } from "../process/ProcessSampler.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { commandsFamily } from "./commands.js"
import { type DaemonFacts, daemonFamilies } from "./daemons.js"
import { makeRequestCounter } from "./requests.js"
import { type Family, render } from "./text.js"

export interface MetricsShape {
  /** Every metric now, in the Prometheus text format. */
  readonly render: Effect.Effect<string>
  /** Counts one answered request (see requests.ts for the route template). */
  readonly countRequest: (method: string, route: string, code: number) => void
}

/** The supervisor's metrics for `GET /metrics` (docs/metrics.md). */
export class Metrics extends Context.Tag("supervisor/Metrics")<Metrics, MetricsShape>() {}

const gauge = (name: string, help: string, value: number, labels: Record<string, string> = {}): Family => ({
  name,
  type: "gauge",
  help,
  samples: [{ labels, value }],
})

/**
 * Reads the daemons the supervisor knows, their process trees (one pass over /proc) and their
 * logs' counters at each scrape; the event-loop delay is sampled all along and reset after each
 * scrape, so its figures cover the time since the previous one.
 */
export const MetricsLive = Layer.scoped(
  Metrics,
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const logs = yield* LogStore
    const trees = yield* ProcessSampler
    const requests = makeRequestCounter()
    // a 100 ms timer: at Node's default 10 ms its wake-ups alone cost 0.65% of a core at idle
    // (0.09% at 100 ms; docs/benchmarks.md); blocks longer than that are what shows a stall. It
    // runs from the first scrape on: a supervisor nobody scrapes is not woken ten times a second,
    // and does not hold the histogram (~0.35 MiB) or load perf_hooks for it.
    let made: IntervalHistogram | undefined
    const histogram = () => (made ??= monitorEventLoopDelay({ resolution: 100 }))
    yield* Effect.addFinalizer(() => Effect.sync(() => made?.disable()))
    const startedAt = Date.now()

    const daemonFacts = Effect.gen(function* () {
      const all = yield* sup.list
      const disabled = new Set(yield* sup.disabledIds)
      const running = all.filter((r) => isActive(r) && r.pid !== null)
      const sampled = yield* trees.sample(running.map((r) => r.pid as number))
      const now = Date.now()
      // one log look-up per daemon; the rest is plain computation
      return yield* Effect.forEach(all, (r) =>
        Effect.map(Effect.option(logs.stats(r.def.id.qualified)), (log): DaemonFacts => {
          const id = r.def.id.qualified
          const active = isActive(r)
          const tree = active && r.pid !== null ? sampled.get(r.pid) : undefined
          let cpuSeconds: number | undefined
          if (tree !== undefined) {
            cpuSeconds = 0
            for (const p of tree.processes) cpuSeconds += p.cpuSeconds
          }
          const readyAt = r.readyAt ?? null
          return {
            id,
            status: disabled.has(id) && !active ? "disabled" : r.status.type,
            restarts: Math.max(0, (r.spawns ?? 0) - 1),
            retries: r.retryCount,
            uptimeSeconds: r.startedAt !== null && active ? Math.max(0, (now - r.startedAt) / 1000) : 0,
            cpuSeconds,
            memoryBytes: tree?.memoryBytes,
            logLines: Option.isSome(log) ? Math.max(0, log.value.lastId) : undefined,
            logBytes: Option.isSome(log) ? log.value.endOffset : undefined,
            readySeconds:
              readyAt !== null && r.startedAt !== null && readyAt >= r.startedAt
                ? (readyAt - r.startedAt) / 1000
                : undefined,
          }
        }),
      )
    })

    const supervisorFamilies = (): ReadonlyArray<Family> => {
      const loop = histogram()
      const s = (ns: number) => (Number.isNaN(ns) ? 0 : ns / 1e9)
      const lag: Family = {
        name: "supervisor_event_loop_lag_seconds",
        type: "gauge",
        help: "Event-loop delay of the supervisor since the previous scrape, by quantile",
        samples: [0.5, 0.9, 0.99].map((q) => ({
          labels: { quantile: String(q) },
          value: loop.count === 0 ? 0 : s(loop.percentile(q * 100)),
        })),
      }
      const families = [
        gauge(
          "supervisor_resident_memory_bytes",
          "Resident memory of the supervisor process",
          process.memoryUsage.rss(),
        ),
        gauge(
          "supervisor_start_time_seconds",
          "When the supervisor started, in seconds since the epoch",
          startedAt / 1000,
        ),
        lag,
        gauge(
          "supervisor_event_loop_lag_max_seconds",
          "Longest event-loop delay of the supervisor since the previous scrape",
          loop.count === 0 ? 0 : s(loop.max),
        ),
        requests.family(),
      ]
      loop.reset()
      loop.enable()
      return families
    }

    return {
      render: Effect.zipWith(daemonFacts, commandsFamily, (daemons, commands) =>
        render([...supervisorFamilies(), commands, ...daemonFamilies(daemons)]),
      ),
      countRequest: requests.count,
    }
  }),
)
