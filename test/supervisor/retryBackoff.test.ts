/**
 * src/supervisor/retry.ts: daemons of the same retry limit share one schedule (an immutable
 * description); each backoff keeps its own state, so stepping one leaves the others at their start.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { nextRetry, retryBackoff } from "../../src/supervisor/retry.js"

describe("retryBackoff", () => {
  it.effect("one schedule per limit; each backoff steps on its own: 1 s, 2 s, then none", () =>
    Effect.gen(function* () {
      const a = retryBackoff(2)
      const b = retryBackoff(2)
      expect(a.schedule).toBe(b.schedule)
      expect(retryBackoff(3).schedule).not.toBe(a.schedule)
      const first = yield* nextRetry(a, 0)
      expect(first?.delayMillis).toBe(1000)
      const second = yield* nextRetry(first!.next, 1000)
      expect(second?.delayMillis).toBe(2000)
      expect(yield* nextRetry(second!.next, 3000)).toBeUndefined()
      // b was not moved by a's steps
      expect((yield* nextRetry(b, 0))?.delayMillis).toBe(1000)
    }),
  )
})
