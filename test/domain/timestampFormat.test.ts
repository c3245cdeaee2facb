import { describe, expect, it } from "vitest"
import { formatLogTimestamp } from "../../src/domain/LogEntry.js"
import {
  DEFAULT_TIMESTAMP_FORMAT,
  formatTimestamp,
  unsupportedSpecifier,
} from "../../src/domain/timestampFormat.js"

// 2025-03-07 09:04:05 local time, a Friday, the 66th day of the year
const at = new Date(2025, 2, 7, 9, 4, 5).getTime()

describe("settings.logs.timestamp_format", () => {
  it("the default renders what the store keeps", () => {
    expect(formatTimestamp(DEFAULT_TIMESTAMP_FORMAT, at)).toBe(formatLogTimestamp(at))
    expect(formatTimestamp(DEFAULT_TIMESTAMP_FORMAT, at)).toBe("2025-03-07 09:04:05")
  })

  it("renders each specifier", () => {
    expect(formatTimestamp("%m-%d %H:%M:%S", at)).toBe("03-07 09:04:05")
    expect(formatTimestamp("%y|%e|%I%p|%b|%a|%j|%F|%T|100%%", at)).toBe(
      "25| 7|09AM|Mar|Fri|066|2025-03-07|09:04:05|100%",
    )
    expect(formatTimestamp("%I %p", new Date(2025, 0, 1, 0, 30).getTime())).toBe("12 AM")
    expect(formatTimestamp("%I %p", new Date(2025, 0, 1, 13, 30).getTime())).toBe("01 PM")
    expect(formatTimestamp("at %H", at)).toBe("at 09")
  })

  it("finds the first specifier it cannot render", () => {
    expect(unsupportedSpecifier("%Y-%m-%d")).toBeUndefined()
    expect(unsupportedSpecifier("100%%")).toBeUndefined()
    expect(unsupportedSpecifier("%H:%M:%3f")).toBe("%3")
    expect(unsupportedSpecifier("%H %")).toBe("%")
  })
})
