import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeWaker } from "../../src/logs/follower.js"

describe("the follower's waker", () => {
  it("a timeout while the file is quiet waits again without waking the fiber; the first time it is not, wakes it", async () => {
    const waker = makeWaker()
    let asked = 0
    const woken = await Effect.runPromise(waker.wait(5, () => ++asked < 3))
    expect(woken).toBe(false)
    expect(asked).toBe(3)
  })

  it("a change event during the quiet waits wakes it at once, as a change", async () => {
    const waker = makeWaker()
    let asked = 0
    const fiber = Effect.runFork(
      waker.wait(5, () => {
        asked += 1
        if (asked === 2) waker.notify()
        return true
      }),
    )
    expect(await Effect.runPromise(Fiber.join(fiber))).toBe(true)
    expect(asked).toBe(2)
  })

  it("an interrupted wait leaves no timer behind: quiet is not asked again", async () => {
    const waker = makeWaker()
    let asked = 0
    const fiber = Effect.runFork(waker.wait(5, () => ++asked > 0))
    await new Promise((ok) => setTimeout(ok, 30))
    await Effect.runPromise(Fiber.interrupt(fiber))
    const after = asked
    expect(after).toBeGreaterThan(0)
    await new Promise((ok) => setTimeout(ok, 30))
    expect(asked).toBe(after)
  })
})
