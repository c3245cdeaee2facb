/**
 * The API token: compared in constant time whatever the lengths, stored 0600 in a 0700
 * directory, overridden by `api.token` / `SUPERVISOR_API_TOKEN`, and never handed on to daemons.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"

// Every call of timingSafeEqual, with the lengths it compared (it throws on different lengths).
const calls = vi.hoisted(() => [] as Array<[number, number]>)
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>()
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    calls.push([a.byteLength, b.byteLength])
    return real.timingSafeEqual(a, b)
  }
  return { ...real, default: { ...real, timingSafeEqual }, timingSafeEqual }
})

// fresh modules: in a worker that already ran another file, token.js may be loaded with the real crypto
vi.resetModules()
const { loadOrCreateToken, sameToken, tokenFile } = await import("../../src/state/token.js")
const { inheritableEnv } = await import("../../src/supervisor/environment.js")

const dirs: Array<string> = []
const tempDir = () => {
  const d = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-sec-token-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
  calls.length = 0
})

describe("sameToken", () => {
  it("accepts the token, refuses anything else, through timingSafeEqual on equal-length digests", () => {
    const token = "a".repeat(64)
    const cases: Array<[string, boolean]> = [
      [token, true],
      [`${"a".repeat(63)}b`, false], // last character differs
      [`b${"a".repeat(63)}`, false], // first character differs
      ["", false],
      ["a", false], // a prefix: shorter
      [`${token}a`, false], // longer
      ["x".repeat(10_000), false], // much longer
      [token.toUpperCase(), false],
      ["é".repeat(64), false], // multi-byte characters
    ]
    for (const [given, expected] of cases)
      expect(sameToken(given, token), JSON.stringify(given)).toBe(expected)
    // one constant-time comparison per call, never skipped for a length mismatch, always 32 = 32 bytes
    expect(calls).toHaveLength(cases.length)
    for (const [a, b] of calls) expect([a, b]).toEqual([32, 32])
  })
})

describe("loadOrCreateToken", () => {
  it("creates a 256-bit token, 0600 in a 0700 directory, and keeps it", () => {
    const state = nodePath.join(tempDir(), "state")
    const token = loadOrCreateToken(state, undefined)
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect(fs.statSync(tokenFile(state)).mode & 0o777).toBe(0o600)
    expect(fs.statSync(state).mode & 0o777).toBe(0o700)
    expect(loadOrCreateToken(state, undefined)).toBe(token)
    expect(fs.readdirSync(state)).toEqual(["api-token"]) // no temporary file left
  })

  it("a configured token (api.token, or SUPERVISOR_API_TOKEN through it) wins over the stored one", () => {
    const state = nodePath.join(tempDir(), "state")
    const stored = loadOrCreateToken(state, undefined)
    expect(loadOrCreateToken(state, "configured-token")).toBe("configured-token")
    // an empty setting is no setting
    expect(loadOrCreateToken(state, "")).toBe(stored)
  })
})

describe("inheritableEnv", () => {
  it("drops SUPERVISOR_API_TOKEN and keeps everything else", () => {
    const env = { PATH: "/bin", SUPERVISOR_API_TOKEN: "s3cret", SUPERVISOR_STATE_DIR: "/x", EMPTY: undefined }
    expect(inheritableEnv(env)).toEqual({ PATH: "/bin", SUPERVISOR_STATE_DIR: "/x", EMPTY: undefined })
    expect(env.SUPERVISOR_API_TOKEN).toBe("s3cret") // the supervisor's own copy is left alone
  })
})
