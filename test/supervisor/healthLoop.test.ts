import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Ref, TestClock } from "effect"
import { healthLoop, nextCheckAt } from "../../src/supervisor/health/loop.js"
import type { HealthSpec } from "../../src/supervisor/health/spec.js"
import type { ProbeAnswer } from "../../src/supervisor/readiness/index.js"
import { awaitSleepUntil } from "./helpers.js"

const spec = (over: Partial<HealthSpec> = {}): HealthSpec => ({
  check: { _tag: "http", url: "http://127.0.0.1:1/health", status: [], timeout: undefined },
  interval: Duration.seconds(5),
  timeout: Duration.seconds(2),
  failures: 3,
  startPeriod: Duration.zero,
  ...over,
})

/** A loop over a fake attempt whose answer the test sets (taking `takes` ms); it records what the loop reports. */
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
    const fiber = yield* Effect.fork(
      healthLoop(s, attempt, {
        unhealthy: (n, last) => Ref.update(reports, (r) => [...r, `unhealthy ${n}: ${last.output}`]),
        healthy: Ref.update(reports, (r) => [...r, "healthy"]),
      }),
    )
    /** Moves the clock to the next attempt (at `at` ms) once the loop sleeps until it. */
    const tick = (at: number) =>
      Effect.gen(function* () {
        yield* awaitSleepUntil(at)
        yield* TestClock.adjust(at - (yield* TestClock.currentTimeMillis))
      })
    return {
      fiber,
      tick,
      setPassing: (ok: boolean) => Ref.set(passing, ok),
      attempts: Ref.get(attempts),
      reports: Ref.get(reports),
    }
  })

describe("health check loop", () => {
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
      yield* Fiber.interrupt(l.fiber)
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
      yield* Fiber.interrupt(l.fiber)
    }),
  )

  it.scoped("no check runs during start_period", () =>
    Effect.gen(function* () {
      const l = yield* makeLoop(spec({ startPeriod: Duration.seconds(30) }))
      yield* l.setPassing(false)
      yield* l.tick(30_000)
      expect(yield* l.attempts).toBe(0)
      // the first check is one interval after the grace
      yield* l.tick(35_000)
      yield* awaitSleepUntil(40_000)
      expect(yield* l.attempts).toBe(1)
      yield* Fiber.interrupt(l.fiber)
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
      yield* Fiber.interrupt(l.fiber)
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
      yield* Fiber.interrupt(l.fiber)
    }),
  )
})
