/**
 * The lock of a daemon's log files (src/logs/mutex.ts): a synchronous holder runs at once while
 * no `withLock` holder is inside, and waits for one that is.
 */
import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { LogStoreError } from "../../src/logs/errors.js"
import { makeLogMutex } from "../../src/logs/mutex.js"

describe("the log files' lock", () => {
  it("runs a synchronous holder at once while the lock is free, and says what it threw", async () => {
    const mutex = makeLogMutex()
    const order: string[] = []
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        order.push(String(yield* mutex.sync(() => 1)))
        return yield* Effect.exit(
          mutex.sync(() => {
            throw new Error("disk full")
          }),
        )
      }),
    )
    expect(order).toEqual(["1"])
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error).toBeInstanceOf(
      LogStoreError,
    )
  })

  it("makes a synchronous holder wait while a holder of withLock is inside, then lets it in", async () => {
    const mutex = makeLogMutex()
    const order: string[] = []
    await Effect.runPromise(
      Effect.gen(function* () {
        const inside = yield* Deferred.make<void>()
        const leave = yield* Deferred.make<void>()
        const holder = yield* Effect.fork(
          mutex.withLock(
            Effect.gen(function* () {
              order.push("holder in")
              yield* Deferred.succeed(inside, undefined)
              yield* Deferred.await(leave)
              order.push("holder out")
            }),
          ),
        )
        yield* Deferred.await(inside)
        const waiter = yield* Effect.fork(mutex.sync(() => order.push("sync")))
        // the waiter has had every chance to run: it must still wait
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
        expect(order).toEqual(["holder in"])
        yield* Deferred.succeed(leave, undefined)
        yield* Fiber.join(holder)
        yield* Fiber.join(waiter)
        // free again: at once
        yield* mutex.sync(() => order.push("after"))
      }),
    )
    expect(order).toEqual(["holder in", "holder out", "sync", "after"])
  })

  it("lets one holder of withLock in at a time, also when one fails", async () => {
    const mutex = makeLogMutex()
    let inside = 0
    let most = 0
    const hold = (fail: boolean) =>
      mutex.withLock(
        Effect.gen(function* () {
          inside++
          most = Math.max(most, inside)
          for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
          inside--
          if (fail) return yield* Effect.fail("failed")
        }),
      )
    await Effect.runPromise(
      Effect.forEach([false, true, false, true], (f) => Effect.either(hold(f)), { concurrency: "unbounded" }),
    )
    expect(most).toBe(1)
    // the failures left the lock free: a synchronous holder runs at once
    expect(await Effect.runPromise(mutex.sync(() => "free"))).toBe("free")
    await Effect.runPromise(mutex.awaitFree)
  })
})
