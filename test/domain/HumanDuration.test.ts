import { Duration, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { formatHumanDuration, HumanDuration, parseHumanDuration } from "../../src/domain/HumanDuration.js"
import { decoder, left, messages, right } from "./helpers.js"

describe("parseHumanDuration", () => {
  it.each([
    ["500ms", 500],
    ["0ms", 0],
    ["5s", 5_000],
    ["0s", 0],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["1d", 86_400_000],
    ["1w", 604_800_000],
    ["5 s", 5_000],
    [" 5s ", 5_000],
    ["3secs", 3_000],
    ["5 min", 300_000],
    ["2 hours", 7_200_000],
    ["250msec", 250],
    ["10 seconds", 10_000],
    ["1500us", 1.5],
  ])("%s is %d ms", (input, ms) => {
    expect(right(parseHumanDuration(input))).toBe(ms)
  })

  it.each([
    ["1m 30s", 90_000],
    ["2h30m", 9_000_000],
    ["2h 30m", 9_000_000],
    ["1h 2m 3s 4ms", 3_723_004],
    ["1d12h", 129_600_000],
  ])("combines the parts of %s into %d ms", (input, ms) => {
    expect(right(parseHumanDuration(input))).toBe(ms)
  })

  it.each([
    ["1.5s", 1_500],
    ["0.5s", 500],
    ["1.5h", 5_400_000],
    ["0.25m", 15_000],
    ["2.5ms", 2.5],
  ])("accepts the decimal %s (%d ms)", (input, ms) => {
    expect(right(parseHumanDuration(input))).toBe(ms)
  })

  it("reads unit names case-insensitively, keeping M for months like humantime", () => {
    expect(right(parseHumanDuration("5MS"))).toBe(5)
    expect(right(parseHumanDuration("5S"))).toBe(5_000)
    expect(right(parseHumanDuration("2H"))).toBe(7_200_000)
    expect(right(parseHumanDuration("1M"))).toBe(2_630_016_000)
    expect(right(parseHumanDuration("1m"))).toBe(60_000)
  })

  it("rejects a bare number with a message naming the unit to add", () => {
    expect(left(parseHumanDuration("5"))).toBe('duration "5" has no unit; write e.g. 5s or 5ms')
    expect(left(parseHumanDuration("1.5"))).toContain("write e.g. 1.5s or 1.5ms")
    expect(left(parseHumanDuration(" 30 "))).toContain("has no unit")
  })

  it("rejects an unknown unit, naming it", () => {
    expect(left(parseHumanDuration("5x"))).toBe(
      'unknown unit "x" in duration "5x"; use ns, us, ms, s, m, h, d or w (or a long form: sec, minutes, hours, ...)',
    )
    expect(left(parseHumanDuration("1m 30parsecs"))).toContain('unknown unit "parsecs"')
  })

  it.each(["", "   ", "x", "s5", "-5s", "1m30", "5s,", "five seconds", "1,5s"])("rejects %j", (input) => {
    expect(left(parseHumanDuration(input))).toMatch(/duration/)
  })

  it("rejects the empty string with an example", () => {
    expect(left(parseHumanDuration(""))).toBe("empty duration; write a number and a unit, e.g. 5s or 500ms")
  })
})

describe("formatHumanDuration", () => {
  it.each([
    [0, "0s"],
    [500, "500ms"],
    [1_000, "1s"],
    [1_500, "1s 500ms"],
    [60_000, "1m"],
    [90_000, "1m 30s"],
    [3_600_000, "1h"],
    [9_000_000, "2h 30m"],
    [86_400_000, "1d"],
    [90_061_001, "1d 1h 1m 1s 1ms"],
    [604_800_000, "7d"],
    [0.5, "0.5ms"],
  ])("formats %d ms as %s", (ms, text) => {
    expect(formatHumanDuration(ms)).toBe(text)
  })

  it("round-trips through parseHumanDuration", () => {
    for (const ms of [
      0, 1, 7, 500, 999, 1_000, 1_001, 59_999, 90_000, 3_599_999, 9_000_000, 86_400_001, 1.5, 123_456_789,
    ]) {
      expect(right(parseHumanDuration(formatHumanDuration(ms))), String(ms)).toBe(ms)
    }
  })

  it("round-trips parsed strings to the same duration", () => {
    for (const text of ["5s", "500ms", "1m 30s", "2h30m", "1.5h", "10 seconds"]) {
      const ms = right(parseHumanDuration(text))
      expect(right(parseHumanDuration(formatHumanDuration(ms))), text).toBe(ms)
    }
  })
})

describe("HumanDuration schema", () => {
  const { ok, fail } = decoder(HumanDuration)

  it("decodes a string to a Duration", () => {
    const d = ok("1m 30s")
    expect(Duration.isDuration(d)).toBe(true)
    expect(Duration.toMillis(d)).toBe(90_000)
    expect(Duration.toMillis(ok("500ms"))).toBe(500)
  })

  it("encodes a Duration to the shortest humantime string", () => {
    const encode = Schema.encodeSync(HumanDuration)
    expect(encode(Duration.seconds(5))).toBe("5s")
    expect(encode(Duration.millis(90_000))).toBe("1m 30s")
    expect(encode(Duration.minutes(150))).toBe("2h 30m")
    expect(encode(Duration.zero)).toBe("0s")
  })

  it("rejects a bare number string with the unit hint", () => {
    expect(messages(fail("5"))).toContain('duration "5" has no unit; write e.g. 5s or 5ms')
  })

  it("rejects a duration too large for a number (found by test/fuzz)", () => {
    expect(messages(fail(`${"9".repeat(400)}y`))).toContain("is too large")
    expect(parseHumanDuration(`${"9".repeat(400)}M`)._tag).toBe("Left")
  })

  it("rejects an unknown unit", () => {
    expect(messages(fail("5 fortnights"))).toContain('unknown unit "fortnights"')
  })

  it("rejects a number with a readable message", () => {
    expect(messages(fail(5))).toContain('expected a duration string such as "5s", "500ms" or "1m 30s"')
  })
})
