import { it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, FiberRef, Scope } from "effect"
import { describe, expect } from "vitest"
import { makeFiberRegistry } from "../../src/concurrency/fiberRegistry.js"

describe("makeFiberRegistry", () => {
  it.scoped("runs a fiber per key with the caller's fiber refs; the key is freed when it ends", () =>
    Effect.gen(function* () {
      const fibers = yield* makeFiberRegistry<string>()
      const ref = FiberRef.unsafeMake("outside")
      const gate = yield* Deferred.make<void>()
      const fiber = yield* Effect.locally(
        fibers.run("a", Effect.zipRight(Deferred.await(gate), FiberRef.get(ref))),
        ref,
        "inherited",
      )
      expect(yield* fibers.has("a")).toBe(true)
      expect(yield* fibers.get("a")).toBe(fiber)
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(fiber)).toBe("inherited")
      yield* Effect.yieldNow()
      expect(yield* fibers.has("a")).toBe(false)
    }),
  )

  it.scoped("runs interruptible even from an uninterruptible caller; remove interrupts and waits", () =>
    Effect.gen(function* () {
      const fibers = yield* makeFiberRegistry<string>()
      const cleaned: Array<string> = []
      const fiber = yield* Effect.uninterruptible(
        fibers.run("a", Effect.never.pipe(Effect.ensuring(Effect.sync(() => cleaned.push("a"))))),
      )
      yield* Effect.yieldNow()
      yield* fibers.remove("a")
      expect(cleaned).toEqual(["a"]) // remove returned after the fiber's finalizer
      expect(Exit.isInterrupted(yield* Fiber.await(fiber))).toBe(true)
      yield* fibers.remove("nothing there") // no fiber: nothing to do
    }),
  )

  it.effect("a second run of a key interrupts the first; closing the scope interrupts every fiber", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const fibers = yield* Scope.extend(makeFiberRegistry<string>(), scope)
      const first = yield* fibers.run("a", Effect.never)
      const second = yield* fibers.run("a", Effect.never)
      const other = yield* fibers.run("b", Effect.never)
      expect(Exit.isInterrupted(yield* Fiber.await(first))).toBe(true)
      expect(yield* fibers.get("a")).toBe(second)
      yield* Scope.close(scope, Exit.void)
      expect(Exit.isInterrupted(yield* Fiber.await(second))).toBe(true)
      expect(Exit.isInterrupted(yield* Fiber.await(other))).toBe(true)
      expect(Exit.isInterrupted(yield* Effect.exit(fibers.run("c", Effect.void)))).toBe(true)
    }),
  )
})
