/**
 * The chokidar backend on a real tree that fails to be watched (two links to each other: their
 * stat fails with ELOOP, for root too): closing it right after its error never leaves an
 * unhandled rejection behind, which would end the supervisor's process.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { chokidarBackend } from "../../../src/automation/watch/fileWatcher.js"

const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-chokidar-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("chokidar backend", () => {
  it("a watcher closed right after its setup failed leaves no unhandled rejection", async () => {
    const dir = nodePath.join(root, "src")
    fs.mkdirSync(dir)
    fs.symlinkSync("b.js", nodePath.join(dir, "a.js"))
    fs.symlinkSync("a.js", nodePath.join(dir, "b.js"))
    const unhandled: Array<unknown> = []
    const listener = (e: unknown) => void unhandled.push(e)
    process.on("unhandledRejection", listener)
    try {
      const errors: Array<string> = []
      for (let i = 0; i < 40; i++) {
        await new Promise<void>((resolve, reject) => {
          const handle = chokidarBackend(
            [dir],
            { poll: false, intervalMillis: 500, ignored: () => false },
            {
              change: () => {},
              ready: () => {},
              error: (e) => {
                errors.push(e.message)
                handle.close().then(resolve, reject)
              },
            },
          )
        }).catch(() => {})
      }
      // what chokidar left pending has settled by now
      await new Promise((r) => setTimeout(r, 300))
      expect(errors.length).toBeGreaterThanOrEqual(40)
      expect(errors[0]).toMatch(/^ELOOP: too many symbolic links encountered/)
      expect(unhandled).toEqual([])
    } finally {
      process.off("unhandledRejection", listener)
    }
  }, 60_000)
})
