import { it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { describe, expect } from "vitest"
import { makeChangeCounter } from "../../src/supervisor/changeCounter.js"

describe("makeChangeCounter", () => {
  it.effect("after returns at once when the count is already above what was seen", () =>
    Effect.gen(function* () {
      const c = makeChangeCounter()
      yield* c.bump
      yield* c.bump
      expect(yield* c.current).toBe(2)
      expect(yield* c.after(1)).toBe(2)
    }),
  )

  it.effect("after waits for the next bump, and every waiter is woken by it", () =>
    Effect.gen(function* () {
      const c = makeChangeCounter()
      const a = yield* Effect.fork(c.after(0))
      const b = yield* Effect.fork(c.after(0))
      yield* Effect.yieldNow()
      expect(a.unsafePoll()).toBeNull()
      yield* c.bump
      expect(yield* Fiber.join(a)).toBe(1)
      expect(yield* Fiber.join(b)).toBe(1)
    }),
  )

  it.effect("an interrupted waiter does not keep the next bump from waking the others", () =>
    Effect.gen(function* () {
      const c = makeChangeCounter()
      const gone = yield* Effect.fork(c.after(0))
      const stays = yield* Effect.fork(c.after(0))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(gone)
      yield* c.bump
      expect(yield* Fiber.join(stays)).toBe(1)
    }),
  )

  it.scoped("changes emits the count now, then once per wake-up (bumps meanwhile seen as one)", () =>
    Effect.gen(function* () {
      const c = makeChangeCounter()
      yield* c.bump
      const pull = yield* Stream.toPull(c.changes)
      expect(Chunk.toReadonlyArray(yield* pull)).toEqual([1])
      const next = yield* Effect.fork(pull)
      yield* Effect.yieldNow()
      expect(next.unsafePoll()).toBeNull()
      yield* c.bump
      expect(Chunk.toReadonlyArray(yield* Fiber.join(next))).toEqual([2])
      yield* c.bump
      yield* c.bump
      expect(Chunk.toReadonlyArray(yield* pull)).toEqual([4])
    }),
  )
})
