import { Duration, Effect } from "effect"
import type { ProbeAnswer } from "../readiness/index.js"
import type { HealthSpec } from "./spec.js"

/** What the check loop tells the daemon's lifecycle. */
export interface HealthReport {
  /** `failures` attempts failed in a row (told once, until an attempt passes again). */
  readonly unhealthy: (failures: number, last: ProbeAnswer) => Effect.Effect<void>
  /** An attempt passed after the daemon was told unhealthy. */
  readonly healthy: Effect.Effect<void>
}

/**
 * A ready daemon's health check: after `startPeriod`, one attempt every `interval`, counting
 * consecutive failures. It is one fiber sleeping on the Clock between attempts, forked in the
 * run's scope: it ends with the run. `attempt` ends by itself within the check's `timeout` (the
 * probes bound their own attempts; a racing timer here would cost more than an http check).
 */
export const healthLoop = (
  spec: HealthSpec,
  attempt: Effect.Effect<ProbeAnswer>,
  report: HealthReport,
): Effect.Effect<never> =>
  Effect.gen(function* () {
    if (Duration.greaterThan(spec.startPeriod, Duration.zero)) yield* Effect.sleep(spec.startPeriod)
    let failed = 0
    let told = false
    for (;;) {
      yield* Effect.sleep(spec.interval)
      const answer = yield* attempt
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
