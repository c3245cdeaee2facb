import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseSince } from "../../src/api/tailQuery.js"

describe("parseSince (the tail's since=)", () => {
  const now = 1_800_000_000_000

  it("reads epoch seconds, epoch milliseconds and durations ago", () => {
    expect(parseSince("1700000000", now)).toEqual(Either.right(1_700_000_000_000))
    expect(parseSince("1700000000123", now)).toEqual(Either.right(1_700_000_000_123))
    expect(parseSince("5min", now)).toEqual(Either.right(now - 300_000))
  })

  it("refuses epoch digits too large for a number (found by test/fuzz)", () => {
    const r = parseSince("9".repeat(400), now)
    expect(Either.isLeft(r) && r.left).toContain("too large")
    expect(Either.isLeft(parseSince("99999999999999999999", now))).toBe(true)
  })

  it("refuses a duration too large for a number", () => {
    expect(Either.isLeft(parseSince(`${"9".repeat(400)}y`, now))).toBe(true)
  })
})
