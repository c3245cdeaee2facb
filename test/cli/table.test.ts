import { describe, expect, it } from "vitest"
import { formatUptime } from "../../src/cli/table.js"

describe("formatUptime", () => {
  it("shows seconds, minutes, hours and days, two units at most; a fresh process has 0s", () => {
    expect([0, 1, 59, 60, 61, 3599, 3600, 3660, 86399, 86400, 90000].map(formatUptime)).toEqual([
      "0s",
      "1s",
      "59s",
      "1m",
      "1m1s",
      "59m59s",
      "1h0m",
      "1h1m",
      "23h59m",
      "1d0h",
      "1d1h",
    ])
  })
})
