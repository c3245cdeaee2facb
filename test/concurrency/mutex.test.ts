import { it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect } from "vitest"
import { LogStoreError } from "../../src/logs/errors.js"
import { makeLogMutex } from "../../src/logs/mutex.js"

describe("makeMutex, as the log store uses it (makeLogMutex)", () => {
  it.effect("sync runs its block at once when the lock is free, and its throw is the failure", () =>
    Effect.gen(function* () {
      const m = makeLogMutex()
      expect(yield* m.sync(() => 42)).toBe(42)
      const failed = yield* Effect.exit(
        m.sync(() => {
          throw new LogStoreError({ message: "boom" })
        }),
      )
      expect(Exit.isFailure(failed)).toBe(true)
      // a failed block released the lock
      expect(yield* m.sync(() => "again")).toBe("again")
    }),
  )

  it.effect("a holder that waits on I/O keeps sync blocks and other holders out until it is done", () =>
    Effect.gen(function* () {
      const m = makeLogMutex()
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        m.withLock(
          Effect.gen(function* () {
            order.push("holder in")
            yield* Deferred.await(gate)
            order.push("holder out")
          }),
        ),
      )
      yield* Effect.yieldNow()
      const block = yield* Effect.fork(m.sync(() => order.push("block")))
      const other = yield* Effect.fork(m.withLock(Effect.sync(() => order.push("other"))))
      const free = yield* Effect.fork(
        Effect.zipRight(
          m.awaitFree,
          Effect.sync(() => order.push("free")),
        ),
      )
      yield* Effect.yieldNow()
      expect(order).toEqual(["holder in"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(block)
      yield* Fiber.join(other)
      yield* Fiber.join(free)
      expect(order.slice(0, 2)).toEqual(["holder in", "holder out"])
      expect(order.slice(2).sort()).toEqual(["block", "free", "other"])
    }),
  )

  it.effect("an interrupted waiter neither takes the lock nor keeps the others waiting", () =>
    Effect.gen(function* () {
      const m = makeLogMutex()
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(m.withLock(Deferred.await(gate)))
      yield* Effect.yieldNow()
      const gone = yield* Effect.fork(m.withLock(Effect.void))
      const stays = yield* Effect.fork(m.sync(() => "ran"))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(gone)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      expect(yield* Fiber.join(stays)).toBe("ran")
      expect(yield* m.sync(() => "free again")).toBe("free again")
    }),
  )

  it.effect("a holder interrupted while it holds the lock releases it", () =>
    Effect.gen(function* () {
      const m = makeLogMutex()
      const holder = yield* Effect.fork(m.withLock(Effect.never))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(holder)
      expect(yield* m.sync(() => "free")).toBe("free")
    }),
  )
})
