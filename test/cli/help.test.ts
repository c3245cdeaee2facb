import { describe, expect, it } from "vitest"
import { wantsHelp } from "../../src/cli/help.js"

describe("wantsHelp", () => {
  it("is asked for by no arguments, or -h/--help anywhere before --", () => {
    expect(wantsHelp([])).toBe(true)
    expect(wantsHelp(["--help"])).toBe(true)
    expect(wantsHelp(["start", "web", "-h"])).toBe(true)
    expect(wantsHelp(["run", "x", "--help", "--", "sleep", "1"])).toBe(true)
  })

  it("is not asked for by a command's words after --, or by the value of a value flag", () => {
    expect(wantsHelp(["run", "x", "--", "grep", "--help"])).toBe(false)
    expect(wantsHelp(["logs", "--grep", "-h"])).toBe(false)
    expect(wantsHelp(["logs", "--grep", "-h", "--help"])).toBe(true)
    expect(wantsHelp(["list", "--json"])).toBe(false)
  })
})
