import { it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, FiberRef } from "effect"
import { describe, expect } from "vitest"
import { forEachAtOnce } from "../../src/concurrency/forEachAtOnce.js"

describe("forEachAtOnce", () => {
  it.effect("runs every item at once with the caller's fiber refs, and returns when all have ended", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const ref = FiberRef.unsafeMake("outside")
      const seen: Array<string> = []
      const started: Array<number> = []
      const run = yield* Effect.fork(
        Effect.locally(
          forEachAtOnce([1, 2, 3], (n) =>
            Effect.gen(function* () {
              started.push(n)
              yield* Deferred.await(gate) // every item waits: they must all have started
              seen.push(`${n}:${yield* FiberRef.get(ref)}`)
            }),
          ),
          ref,
          "caller",
        ),
      )
      yield* Effect.yieldNow()
      expect(started).toEqual([1, 2, 3])
      expect(run.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(run)
      expect(seen.sort()).toEqual(["1:caller", "2:caller", "3:caller"])
      yield* forEachAtOnce([], () => Effect.die("never called"))
    }),
  )

  it.effect("interrupting it interrupts every item", () =>
    Effect.gen(function* () {
      const ended: Array<number> = []
      const run = yield* Effect.fork(
        forEachAtOnce([1, 2], (n) =>
          Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => ended.push(n)))),
        ),
      )
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(run)
      expect(ended.sort()).toEqual([1, 2])
    }),
  )

  it.effect("a defect in one item is the run's, once the others have ended", () =>
    Effect.gen(function* () {
      const finished: Array<number> = []
      const exit = yield* Effect.exit(
        forEachAtOnce([1, 2, 3], (n) =>
          n === 2
            ? Effect.die("boom")
            : Effect.zipRight(
                Effect.yieldNow(),
                Effect.sync(() => finished.push(n)),
              ),
        ),
      )
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(finished.sort()).toEqual([1, 3])
    }),
  )
})
