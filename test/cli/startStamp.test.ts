import { describe, expect, it } from "vitest"
import { clockTime, startStamp } from "../../src/cli/startStamp.js"

describe("settings.general.startup_log_timestamps", () => {
  it("puts HH:MM:SS (local) before a line when on, leaves it as it is when off", () => {
    expect(clockTime(new Date(2025, 0, 2, 7, 8, 9))).toBe("07:08:09")
    expect(startStamp(false)("✓ app/web is running")).toBe("✓ app/web is running")
    // NO_COLOR (the test environment) or not: the time, a space, the line
    expect(startStamp(true)("✓ app/web is running").replace(/\x1b\[[0-9;]*m/g, "")).toMatch(
      /^\d\d:\d\d:\d\d ✓ app\/web is running$/,
    )
  })
})
