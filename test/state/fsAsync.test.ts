import * as fs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { fdatasync, readdirEntries, withFd, writeAll } from "../../src/state/fsAsync.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = fs.mkdtempSync(join(tmpdir(), "sv-fsasync-"))
  dirs.push(d)
  return d
}
/** What descriptor `fd` of this process is open on now, if anything. */
const openOn = (fd: number) => {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

describe("fsAsync", () => {
  it("writes all of a text, and appends to a file opened to append", async () => {
    const file = join(tempDir(), "f")
    const big = "x".repeat(300_000)
    await withFd(file, "w", 0o600, (fd) => writeAll(fd, big))
    await withFd(file, "a", 0o600, async (fd) => {
      await writeAll(fd, "tail\n")
      await fdatasync(fd)
    })
    expect(fs.readFileSync(file, "utf8")).toBe(`${big}tail\n`)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it("closes the descriptor when the use fails, and passes the failure on", async () => {
    const file = join(tempDir(), "f")
    let used = -1
    await expect(
      withFd(file, "w", 0o600, async (fd) => {
        used = fd
        expect(openOn(fd)).toBe(file)
        throw new Error("boom")
      }),
    ).rejects.toThrow("boom")
    // closed: gone, or the number given again to something else
    expect(openOn(used)).not.toBe(file)
  })

  it("fails to open what is not there, with Node's error", async () => {
    await expect(
      withFd(join(tempDir(), "missing", "f"), "r", undefined, async () => 1),
    ).rejects.toMatchObject({
      code: "ENOENT",
    })
  })

  it("lists a directory's entries with their kinds", async () => {
    const dir = tempDir()
    fs.mkdirSync(join(dir, "sub"))
    fs.writeFileSync(join(dir, "file"), "")
    const entries = await readdirEntries(dir)
    expect(entries.map((e) => [e.name, e.isDirectory()]).sort()).toEqual([
      ["file", false],
      ["sub", true],
    ])
  })
})
