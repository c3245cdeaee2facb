// The suite's setup gives the event loop a turn between tests (test/setup/yieldBetweenTests.ts):
// a callback queued by one synchronous test has run before the next one starts.
import { describe, expect, it } from "vitest"

describe("between two synchronous tests", () => {
  let ran = false
  it("queues a callback for the event loop", () => {
    setImmediate(() => {
      ran = true
    })
    expect(ran).toBe(false)
  })
  it("finds it run", () => {
    expect(ran).toBe(true)
  })
})
