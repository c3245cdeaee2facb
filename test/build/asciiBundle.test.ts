/**
 * The supervisor's bundle is ASCII: the launcher maps it as a Latin-1 string (one byte a
 * character, src/host/mappedSource.ts), and a bundle that is not falls back to a string in the
 * heap, ~0.9 MiB more at rest. esbuild escapes what is not ASCII in strings, not in regular
 * expressions: write `\u00b5` there, not `µ`.
 */
import { isAscii } from "node:buffer"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"

describe("dist/host.cjs", () => {
  it("is ASCII", () => {
    const bytes = readFileSync(resolve(__dirname, "../../dist/host.cjs"))
    const first = bytes.findIndex((b) => b >= 0x80)
    expect(first === -1 ? "" : bytes.subarray(Math.max(0, first - 60), first + 20).toString("utf8")).toBe("")
    expect(isAscii(bytes)).toBe(true)
  })
})
