import { describe, expect, it } from "vitest"
import { MAX_BODY_DEPTH, nestsDeeperThan } from "../../src/api/bodyDepth.js"

describe("nestsDeeperThan (request bodies refused before decoding)", () => {
  const nested = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`

  it("counts arrays and objects inside each other", () => {
    expect(nestsDeeperThan(nested(3), 3)).toBe(false)
    expect(nestsDeeperThan(nested(4), 3)).toBe(true)
    expect(nestsDeeperThan('{"a":{"b":[{"c":1}]}}', 3)).toBe(true)
    expect(nestsDeeperThan('{"a":[1],"b":[2],"c":{"d":3}}', 2)).toBe(false)
  })

  it("skips brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan(`{"a":"${"[".repeat(100)}"}`, 1)).toBe(false)
    expect(nestsDeeperThan(`{"a":"\\"${"{".repeat(100)}"}`, 1)).toBe(false)
    expect(nestsDeeperThan(`["\\\\",[[1]]]`, 2)).toBe(true)
  })

  it("refuses the 5,000-deep body that overflowed the stack of decoding (found by test/fuzz)", () => {
    expect(nestsDeeperThan(`{"ids":${nested(5000)}}`, MAX_BODY_DEPTH)).toBe(true)
    expect(nestsDeeperThan(`{"ids":["app/web"],"lines":10}`, MAX_BODY_DEPTH)).toBe(false)
  })
})
