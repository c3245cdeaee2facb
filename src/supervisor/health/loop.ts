import { Clock, Duration, Effect } from "effect"
import type { ProbeAnswer } from "../readiness/index.js"
import type { HealthSpec } from "./spec.js"

/** What the check loop tells the daemon's lifecycle. */
export interface HealthReport {
  /** `failures` attempts failed in a row (told once, until an attempt passes again). */
  readonly unhealthy: (failures: number, last: ProbeAnswer) => Effect.Effect<void>
  /** An attempt passed after the daemon was told unhealthy. */
  readonly healthy: Effect.Effect<void>
}

/** Checks of an interval of a second or more start on whole seconds of the clock. */
const ALIGN = 1000

/**
 * When the check after `now` starts: one `period` on, rounded up to a whole second (for periods
 * of a second or more), so that the checks of many daemons wake together: one timer and warm
 * caches for all of them cost a third less CPU a check than the same checks spread out
 * (docs/benchmarks.md, health checks).
 */
export const nextCheckAt = (now: number, period: number): number =>
  period >= ALIGN ? Math.ceil((now + period) / ALIGN) * ALIGN : now + period

/**
 * A ready daemon's health check: after `startPeriod`, one attempt every `interval` (start to
 * start, the first on a whole second: `nextCheckAt`), counting consecutive failures. It is one
 * fiber sleeping on the Clock between attempts, forked in the run's scope: it ends with the run.
 * `attempt` ends by itself within the check's `timeout` (the probes bound their own attempts; a
 * racing timer here would cost more than an http check).
 */
export const healthLoop = (
  spec: HealthSpec,
  attempt: Effect.Effect<ProbeAnswer>,
  report: HealthReport,
): Effect.Effect<never> =>
  Effect.gen(function* () {
    if (Duration.greaterThan(spec.startPeriod, Duration.zero)) yield* Effect.sleep(spec.startPeriod)
    const period = Duration.toMillis(spec.interval)
    let next = nextCheckAt(yield* Clock.currentTimeMillis, period)
    let failed = 0
    let told = false
    for (;;) {
      yield* Effect.sleep(Duration.millis(Math.max(0, next - (yield* Clock.currentTimeMillis))))
      const answer = yield* attempt
      // an attempt that ran past its slot (timeout = interval) is followed a period after it ends
      const now = yield* Clock.currentTimeMillis
      next = next + period > now ? next + period : nextCheckAt(now, period)
      if (answer.ok) {
        failed = 0
        if (told) {
          told = false
          yield* report.healthy
        }
        continue
      }
      failed += 1
      if (failed >= spec.failures && !told) {
        told = true
        yield* report.unhealthy(failed, answer)
      }
    }
  })
