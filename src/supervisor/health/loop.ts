import { Duration, Effect } from "effect"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import type { ProbeAnswer } from "../readiness/index.js"
import type { HealthSpec } from "./spec.js"

/** How much longer than its timeout an attempt may take before the loop gives up on it. */
const ATTEMPT_GRACE = Duration.seconds(1)

/** What the check loop tells the daemon's lifecycle. */
export interface HealthReport {
  /** `failures` attempts failed in a row (told once, until an attempt passes again). */
  readonly unhealthy: (failures: number, last: ProbeAnswer) => Effect.Effect<void>
  /** An attempt passed after the daemon was told unhealthy. */
  readonly healthy: Effect.Effect<void>
}

/**
 * A ready daemon's health check: after `startPeriod`, one attempt every `interval` (each given
 * `timeout`), counting consecutive failures. It is one fiber sleeping on the Clock between
 * attempts, forked in the run's scope: it ends with the run.
 */
export const healthLoop = (
  spec: HealthSpec,
  attempt: Effect.Effect<ProbeAnswer>,
  report: HealthReport,
): Effect.Effect<never> =>
  Effect.gen(function* () {
    const timedOut: ProbeAnswer = {
      ok: false,
      output: `no answer within ${formatHumanDuration(Duration.toMillis(spec.timeout))}`,
    }
    // The probes end an attempt at `timeout` themselves, saying what they waited for; this
    // bound is for one that would not.
    const once = attempt.pipe(
      Effect.timeoutTo({
        duration: Duration.sum(spec.timeout, ATTEMPT_GRACE),
        onTimeout: () => timedOut,
        onSuccess: (a) => a,
      }),
    )
    if (Duration.greaterThan(spec.startPeriod, Duration.zero)) yield* Effect.sleep(spec.startPeriod)
    let failed = 0
    let told = false
    for (;;) {
      yield* Effect.sleep(spec.interval)
      const answer = yield* once
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
