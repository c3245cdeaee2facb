/**
 * `createAside` (src/logs/fsio.ts): a daemon's log file made on libuv's threads before its
 * follower opens it. Real files in a temporary directory.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createAside } from "../../src/logs/fsio.js"

describe("createAside", () => {
  let dir = ""
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sv-fsio-"))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it("creates a missing file, empty and private", async () => {
    const path = join(dir, "web.out")
    await Effect.runPromise(createAside(path))
    expect(statSync(path).size).toBe(0)
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it("leaves an existing file as it is", async () => {
    const path = join(dir, "web.out")
    writeFileSync(path, "kept\n", { mode: 0o640 })
    await Effect.runPromise(createAside(path))
    expect(readFileSync(path, "utf8")).toBe("kept\n")
    expect(statSync(path).mode & 0o777).toBe(0o640)
  })

  it("leaves a failure to the open that follows (a missing directory)", async () => {
    const path = join(dir, "missing", "web.out")
    await expect(Effect.runPromise(createAside(path))).resolves.toBeUndefined()
    expect(() => statSync(path)).toThrow(/ENOENT/)
  })
})
