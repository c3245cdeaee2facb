import { Cause, Duration, Effect, Exit, type Fiber, FiberId, Runtime, type Scope } from "effect"
import { answerOutput } from "../readiness/answer.js"
import type { ProbeAnswer, StartAttempt } from "../readiness/index.js"
import type { HealthSpec } from "./spec.js"

/** What a health check tells the daemon's lifecycle. */
export interface HealthReport {
  /** `failures` attempts failed in a row (told once, until an attempt passes again). */
  readonly unhealthy: (failures: number, last: ProbeAnswer) => Effect.Effect<void>
  /** An attempt passed after the daemon was told unhealthy. */
  readonly healthy: Effect.Effect<void>
}

/** One attempt of a check: started by a callback (no fiber), or an effect run on a fiber of its own. */
export type HealthAttempt = StartAttempt | Effect.Effect<ProbeAnswer>

/** The health checks of all daemons, run from one timer. */
export interface HealthChecks {
  /**
   * Checks `attempt` on `spec`'s schedule until the scope closes (an attempt in flight is then
   * cancelled): after `startPeriod`, one attempt every `interval`, start to start, the first on a
   * whole second (`nextCheckAt`); `failures` failed attempts in a row are told to `report` once.
   */
  readonly watch: (
    spec: HealthSpec,
    attempt: HealthAttempt,
    report: HealthReport,
  ) => Effect.Effect<void, never, Scope.Scope>
}

/** Checks of an interval of a second or more start on whole seconds of the clock. */
const ALIGN = 1000

/**
 * When the check after `now` starts: one `period` on, rounded up to a whole second (for periods
 * of a second or more), so that the checks of many daemons run in one wake-up of the timer.
 */
export const nextCheckAt = (now: number, period: number): number =>
  period >= ALIGN ? Math.ceil((now + period) / ALIGN) * ALIGN : now + period

interface Check {
  readonly period: number
  readonly failures: number
  readonly start: StartAttempt
  readonly report: HealthReport
  /** When the next attempt is due (its slot), and the slot of the one in flight. */
  due: number
  /** Cancels the attempt in flight; undefined when none is. */
  cancel: (() => void) | undefined
  failed: number
  told: boolean
}

const noop = () => {}

/**
 * The checks, with one timer for all of them: it sleeps on the Clock until the earliest check
 * is due, then starts every due attempt by callback. Attempts and their counting run outside the
 * fiber runtime; only a report to the lifecycle runs on a fiber. With a fiber per check (a sleep
 * and an effect per attempt) a check cost twice the CPU (docs/benchmarks.md, health checks).
 */
export const makeHealthChecks: Effect.Effect<HealthChecks> = Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const clock = yield* Effect.clock
  const fork = Runtime.runFork(runtime)
  const runCallback = Runtime.runCallback(runtime)
  const checks = new Set<Check>()
  let timer: { readonly at: number; readonly fiber: Fiber.RuntimeFiber<void> } | undefined
  let armed = 0 // which timer is the current one: an interrupted one may still wake
  let ticking = false

  const startOf = (attempt: HealthAttempt): StartAttempt =>
    Effect.isEffect(attempt)
      ? (done) =>
          runCallback(attempt, {
            onExit: (exit) => {
              if (Exit.isSuccess(exit)) done(exit.value)
              else if (!Exit.isInterrupted(exit))
                done({ ok: false, output: answerOutput(Cause.pretty(exit.cause)) })
            },
          })
      : attempt

  /** Sets the timer for the earliest due check not in flight (an attempt ending sets its own). */
  const arm = () => {
    let wake = Number.POSITIVE_INFINITY
    for (const c of checks) if (c.cancel === undefined && c.due < wake) wake = c.due
    if (timer !== undefined) {
      if (timer.at <= wake && wake !== Number.POSITIVE_INFINITY) return
      timer.fiber.unsafeInterruptAsFork(FiberId.none)
      timer = undefined
    }
    if (wake === Number.POSITIVE_INFINITY) return
    const sleep = Duration.millis(Math.max(0, wake - clock.unsafeCurrentTimeMillis()))
    const token = ++armed
    timer = {
      at: wake,
      fiber: fork(
        Effect.zipRight(
          Effect.sleep(sleep),
          Effect.sync(() => tick(token)),
        ),
      ),
    }
  }

  const tick = (token: number) => {
    if (token !== armed) return
    timer = undefined
    ticking = true
    const now = clock.unsafeCurrentTimeMillis()
    for (const c of checks) if (c.cancel === undefined && c.due <= now) begin(c)
    ticking = false
    arm()
  }

  const begin = (c: Check) => {
    const slot = c.due
    c.cancel = noop // in flight: an answer given at once ends it before `start` returns
    try {
      const cancel = c.start((answer) => end(c, slot, answer))
      if (c.cancel === noop) c.cancel = cancel
    } catch (e) {
      // e.g. a port net.connect refuses: a failed attempt, not the end of every check
      end(c, slot, { ok: false, output: e instanceof Error ? e.message : String(e) })
    }
  }

  const end = (c: Check, slot: number, answer: ProbeAnswer) => {
    if (c.cancel === undefined) return // cancelled: its check ended with its scope
    c.cancel = undefined
    // an attempt that ran past its slot (timeout = interval) is followed a period after it ends
    const now = clock.unsafeCurrentTimeMillis()
    c.due = slot + c.period > now ? slot + c.period : nextCheckAt(now, c.period)
    if (answer.ok) {
      c.failed = 0
      if (c.told) {
        c.told = false
        fork(c.report.healthy)
      }
    } else {
      c.failed += 1
      if (c.failed >= c.failures && !c.told) {
        c.told = true
        fork(c.report.unhealthy(c.failed, answer))
      }
    }
    if (!ticking && (timer === undefined || c.due < timer.at)) arm()
  }

  const watch: HealthChecks["watch"] = (spec, attempt, report) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const period = Duration.toMillis(spec.interval)
        const grace = Duration.toMillis(spec.startPeriod)
        const check: Check = {
          period,
          failures: spec.failures,
          start: startOf(attempt),
          report,
          due: nextCheckAt(clock.unsafeCurrentTimeMillis() + grace, period),
          cancel: undefined,
          failed: 0,
          told: false,
        }
        checks.add(check)
        if (timer === undefined || check.due < timer.at) arm()
        return check
      }),
      (check) =>
        Effect.sync(() => {
          checks.delete(check)
          const cancel = check.cancel
          check.cancel = undefined
          cancel?.()
          if (checks.size === 0) arm()
        }),
    ).pipe(Effect.asVoid)

  return { watch }
})
