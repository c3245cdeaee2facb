import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseTimeArg } from "../../src/cli/actions/logs.js"

describe("logs --since/--until values", () => {
  const now = Date.parse("2026-06-01T12:00:00Z")

  it("reads durations ago and dates", () => {
    expect(parseTimeArg("5min", now)).toEqual(Either.right(now - 300_000))
    expect(parseTimeArg("2h ago", now)).toEqual(Either.right(now - 7_200_000))
    expect(Either.isRight(parseTimeArg("2026-01-31 12:00:00", now))).toBe(true)
  })

  it("refuses a duration too large for a number, saying so (found by test/fuzz)", () => {
    const r = parseTimeArg(`${"9".repeat(400)}y`, now)
    expect(Either.isLeft(r) && r.left).toContain("too large")
  })
})
