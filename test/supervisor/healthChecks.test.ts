import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Ref, Scope, TestClock } from "effect"
import { type HealthAttempt, makeHealthChecks, nextCheckAt } from "../../src/supervisor/health/checks.js"
import type { HealthSpec } from "../../src/supervisor/health/spec.js"
import type { ProbeAnswer } from "../../src/supervisor/readiness/index.js"
import { awaitSleepUntil, sleepsUntil } from "./helpers.js"

const spec = (over: Partial<HealthSpec> = {}): HealthSpec => ({
  check: { _tag: "http", url: "http://127.0.0.1:1/health", status: [], timeout: undefined },
  interval: Duration.seconds(5),
  timeout: Duration.seconds(2),
  failures: 3,
  startPeriod: Duration.zero,
  ...over,
})

/** A check of a fake attempt whose answer the test sets (taking `takes` ms); it records what the check reports. */
const makeLoop = (s: HealthSpec, takes = 0) =>
  Effect.gen(function* () {
    const passing = yield* Ref.make(true)
    const attempts = yield* Ref.make(0)
    const reports = yield* Ref.make<ReadonlyArray<string>>([])
    const attempt = Effect.gen(function* () {
      yield* Ref.update(attempts, (n) => n + 1)
      if (takes > 0) yield* Effect.sleep(takes)
      const ok = yield* Ref.get(passing)
      return { ok, output: ok ? "" : "HTTP 503" } satisfies ProbeAnswer
    })
    const checks = yield* makeHealthChecks
    const scope = yield* Scope.make()
    yield* checks
      .watch(s, attempt, {
        unhealthy: (n, last) => Ref.update(reports, (r) => [...r, `unhealthy ${n}: ${last.output}`]),
        healthy: Ref.update(reports, (r) => [...r, "healthy"]),
      })
      .pipe(Scope.extend(scope))
    /** Moves the clock to the next attempt (at `at` ms) once the timer sleeps until it. */
    const tick = (at: number) =>
      Effect.gen(function* () {
        yield* awaitSleepUntil(at)
        yield* TestClock.adjust(at - (yield* TestClock.currentTimeMillis))
      })
    return {
      scope,
      tick,
      setPassing: (ok: boolean) => Ref.set(passing, ok),
      attempts: Ref.get(attempts),
      reports: Ref.get(reports),
    }
  })

describe("health checks", () => {
  it.scoped("checks every interval; unhealthy after `failures` failures in a row, once", () =>
    Effect.gen(function* () {
      const l = yield* makeLoop(spec())
      yield* l.tick(5000)
      expect(yield* l.attempts).toBe(1)
      yield* l.setPassing(false)
      yield* l.tick(10_000)
      yield* l.tick(15_000)
      expect(yield* l.reports).toEqual([])
      yield* l.tick(20_000)
      // the third failure in a row: told once
      yield* awaitSleepUntil(25_000)
      expect(yield* l.reports).toEqual(["unhealthy 3: HTTP 503"])
      yield* l.tick(25_000)
      yield* awaitSleepUntil(30_000)
      expect(yield* l.attempts).toBe(5)
      expect(yield* l.reports).toEqual(["unhealthy 3: HTTP 503"])
      yield* Scope.close(l.scope, Exit.void)
    }),
  )

  it.scoped("a passing check resets the count and clears unhealthy", () =>
    Effect.gen(function* () {
      const l = yield* makeLoop(spec({ failures: 2 }))
      yield* l.setPassing(false)
      yield* l.tick(5000)
      yield* l.setPassing(true)
      yield* l.tick(10_000)
      yield* l.setPassing(false)
      yield* l.tick(15_000)
      yield* awaitSleepUntil(20_000)
      // fail, pass, fail: never two in a row
      expect(yield* l.reports).toEqual([])
      yield* l.tick(20_000)
      yield* awaitSleepUntil(25_000)
      expect(yield* l.reports).toEqual(["unhealthy 2: HTTP 503"])
      yield* l.setPassing(true)
      yield* l.tick(25_000)
      yield* awaitSleepUntil(30_000)
      expect(yield* l.reports).toEqual(["unhealthy 2: HTTP 503", "healthy"])
      // healthy is told once too
      yield* l.tick(30_000)
      yield* awaitSleepUntil(35_000)
      expect(yield* l.reports).toEqual(["unhealthy 2: HTTP 503", "healthy"])
      yield* Scope.close(l.scope, Exit.void)
    }),
  )

  it.scoped("no check runs during start_period", () =>
    Effect.gen(function* () {
      const l = yield* makeLoop(spec({ startPeriod: Duration.seconds(30) }))
      yield* l.setPassing(false)
      yield* awaitSleepUntil(35_000)
      yield* TestClock.adjust(34_999)
      expect(yield* l.attempts).toBe(0)
      // the first check is one interval after the grace
      yield* l.tick(35_000)
      yield* awaitSleepUntil(40_000)
      expect(yield* l.attempts).toBe(1)
      yield* Scope.close(l.scope, Exit.void)
    }),
  )

  it("the next check is a period on, rounded up to a whole second for periods of a second or more", () => {
    expect(nextCheckAt(0, 5000)).toBe(5000)
    expect(nextCheckAt(1234, 5000)).toBe(7000)
    expect(nextCheckAt(1000, 1500)).toBe(3000)
    // under a second: not rounded
    expect(nextCheckAt(1234, 250)).toBe(1484)
  })

  it.scoped("a loop started off the second checks on whole seconds, start to start", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust(1234)
      // each attempt takes 2 s: the next still starts an interval after the last one started
      const l = yield* makeLoop(spec(), 2000)
      yield* l.tick(7000)
      yield* l.tick(9000)
      expect(yield* l.attempts).toBe(1)
      yield* awaitSleepUntil(12_000)
      yield* l.tick(12_000)
      expect(yield* l.attempts).toBe(2)
      yield* Scope.close(l.scope, Exit.void)
    }),
  )

  it.scoped("an attempt that runs past its slot is followed a period after it ends", () =>
    Effect.gen(function* () {
      const l = yield* makeLoop(spec({ interval: Duration.seconds(2) }), 3000)
      yield* l.tick(2000)
      // the attempt ends at 5000, past the slot at 4000: the next is at 7000
      yield* l.tick(5000)
      yield* awaitSleepUntil(7000)
      expect(yield* l.attempts).toBe(1)
      yield* l.tick(7000)
      expect(yield* l.attempts).toBe(2)
      yield* Scope.close(l.scope, Exit.void)
    }),
  )

  it.scoped("the checks due on the same second share one timer; a check due earlier sets it earlier", () =>
    Effect.gen(function* () {
      const checks = yield* makeHealthChecks
      const scope = yield* Scope.make()
      const attempts = yield* Ref.make<ReadonlyArray<string>>([])
      const attempt = (name: string) =>
        Effect.as(
          Ref.update(attempts, (a) => [...a, name]),
          { ok: true, output: "" } satisfies ProbeAnswer,
        )
      const report = { unhealthy: () => Effect.void, healthy: Effect.void }
      yield* TestClock.adjust(300)
      yield* checks.watch(spec(), attempt("a"), report).pipe(Scope.extend(scope))
      yield* TestClock.adjust(400)
      yield* checks.watch(spec(), attempt("b"), report).pipe(Scope.extend(scope))
      // both due at 6000: one sleep
      expect(yield* sleepsUntil(6000)).toBe(1)
      // a check of 2 s, added later, is due first: the timer is set for it
      yield* checks
        .watch(spec({ interval: Duration.seconds(2) }), attempt("c"), report)
        .pipe(Scope.extend(scope))
      yield* awaitSleepUntil(3000)
      yield* TestClock.adjust(3000 - 700)
      yield* awaitSleepUntil(5000)
      expect(yield* Ref.get(attempts)).toEqual(["c"])
      yield* TestClock.adjust(2000)
      yield* awaitSleepUntil(6000)
      yield* TestClock.adjust(1000)
      yield* awaitSleepUntil(7000)
      expect(yield* Ref.get(attempts)).toEqual(["c", "c", "a", "b"])
      yield* Scope.close(scope, Exit.void)
    }),
  )

  it.scoped("a callback attempt runs without a fiber; closing the scope cancels one in flight", () =>
    Effect.gen(function* () {
      const checks = yield* makeHealthChecks
      const scope = yield* Scope.make()
      const log: Array<string> = []
      let answer: ((a: ProbeAnswer) => void) | undefined
      const start: HealthAttempt = (done) => {
        log.push("start")
        answer = done
        return () => log.push("cancel")
      }
      const reports = yield* Ref.make<ReadonlyArray<string>>([])
      yield* checks
        .watch(spec({ failures: 1 }), start, {
          unhealthy: (n, last) => Ref.update(reports, (r) => [...r, `unhealthy ${n}: ${last.output}`]),
          healthy: Ref.update(reports, (r) => [...r, "healthy"]),
        })
        .pipe(Scope.extend(scope))
      yield* awaitSleepUntil(5000)
      yield* TestClock.adjust(5000)
      expect(log).toEqual(["start"])
      // it answers a second later: the next check is still at 10 s
      yield* TestClock.adjust(1000)
      answer?.({ ok: false, output: "HTTP 503" })
      yield* awaitSleepUntil(10_000)
      for (let turn = 0; turn < 100 && (yield* Ref.get(reports)).length === 0; turn++)
        yield* Effect.yieldNow()
      expect(yield* Ref.get(reports)).toEqual(["unhealthy 1: HTTP 503"])
      yield* TestClock.adjust(4000)
      expect(log).toEqual(["start", "start"])
      yield* Scope.close(scope, Exit.void)
      expect(log).toEqual(["start", "start", "cancel"])
      // an answer after the close is not counted
      answer?.({ ok: true, output: "" })
      yield* Effect.yieldNow()
      expect(yield* Ref.get(reports)).toEqual(["unhealthy 1: HTTP 503"])
    }),
  )

  it.scoped("an attempt that throws as it starts is a failed attempt; the other checks go on", () =>
    Effect.gen(function* () {
      const checks = yield* makeHealthChecks
      const scope = yield* Scope.make()
      const reports = yield* Ref.make<ReadonlyArray<string>>([])
      let fine = 0
      const throwing: HealthAttempt = () => {
        throw new Error("bad port")
      }
      const passing: HealthAttempt = (done) => {
        fine += 1
        done({ ok: true, output: "" })
        return () => {}
      }
      yield* checks
        .watch(spec({ failures: 1 }), throwing, {
          unhealthy: (n, last) => Ref.update(reports, (r) => [...r, `unhealthy ${n}: ${last.output}`]),
          healthy: Effect.void,
        })
        .pipe(Scope.extend(scope))
      yield* checks
        .watch(spec(), passing, { unhealthy: () => Effect.void, healthy: Effect.void })
        .pipe(Scope.extend(scope))
      yield* awaitSleepUntil(5000)
      yield* TestClock.adjust(5000)
      yield* awaitSleepUntil(10_000)
      for (let turn = 0; turn < 100 && (yield* Ref.get(reports)).length === 0; turn++)
        yield* Effect.yieldNow()
      expect(yield* Ref.get(reports)).toEqual(["unhealthy 1: bad port"])
      yield* TestClock.adjust(5000)
      expect(fine).toBe(2)
      yield* Scope.close(scope, Exit.void)
    }),
  )
})
