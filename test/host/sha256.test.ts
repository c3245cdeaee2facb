/**
 * src/host/sha256.ts against Node's own SHA-256: the lock's name (src/host/lockName.ts) must stay
 * what every earlier version computed, or a supervisor started after an upgrade would not see the
 * lock of one still running.
 */
import { createHash } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { lockName } from "../../src/host/lockName.js"
import { sha256Hex } from "../../src/host/sha256.js"

const node = (text: string) => createHash("sha256").update(text).digest("hex")

describe("sha256Hex", () => {
  it("matches node:crypto at the padding's edges and on multi-byte text", () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000])
      expect(sha256Hex("a".repeat(n)), `${n} bytes`).toBe(node("a".repeat(n)))
    expect(sha256Hex("/home/é/漢字/🙂")).toBe(node("/home/é/漢字/🙂"))
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("matches node:crypto on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => sha256Hex(text) === node(text)),
      { numRuns: 300 },
    )
  })

  it("names the lock as before: the first 32 hex digits of the state directory's hash", () => {
    expect(lockName("/tmp/state")).toBe(`\0supervisor-${node("/tmp/state").slice(0, 32)}`)
  })
})
