/**
 * The native backend on real trees: an event costs a lookup of its name (no directory is read
 * again, nothing is stat'ed for a file the patterns leave out), a directory made later is walked
 * with its files, one removed is forgotten, links to directories are walked once, and a link loop
 * among the watched names fails the setup as docs/watch.md says.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { ignoredBy } from "../../../src/automation/watch/fileWatcher.js"
import { nativeBackend } from "../../../src/automation/watch/nativeBackend.js"
import { pathFilter, targetOf } from "../../../src/automation/watch/spec.js"
import { waitFor } from "../../e2e/harness.js"

const roots: Array<string> = []
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const close of closers.splice(0)) await close()
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
})

const tree = () => {
  const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-native-watch-")))
  roots.push(root)
  return root
}

/** The backend on `root` with these patterns; resolves once it is ready (or with its setup error). */
const open = async (root: string, patterns: ReadonlyArray<string>) => {
  const changes: Array<string> = []
  const errors: Array<string> = []
  const filter = pathFilter(
    patterns.map((p) => targetOf(root, p)),
    undefined,
  )
  let ready = false
  const handle = nativeBackend(
    [root],
    { poll: false, intervalMillis: 500, ignored: ignoredBy(filter) },
    {
      change: (path) => {
        if (filter.matches(path)) changes.push(nodePath.relative(root, path))
      },
      ready: () => {
        ready = true
      },
      error: (e) => void errors.push(e.message),
    },
  )
  closers.push(handle.close)
  await waitFor("the watcher's setup", () => ready || errors.length > 0)
  return { changes, errors, ready: () => ready }
}

describe("native watch backend", () => {
  it("a file written many times beside the watched ones: no directory read, nothing stat'ed", async () => {
    const root = tree()
    for (let i = 0; i < 50; i++) fs.writeFileSync(nodePath.join(root, `f${i}.txt`), "")
    fs.writeFileSync(nodePath.join(root, "app.ts"), "1")
    const w = await open(root, ["*.ts"])
    const readdir = vi.spyOn(fs.promises, "readdir")
    const stat = vi.spyOn(fs.promises, "stat")
    for (let i = 0; i < 300; i++) fs.appendFileSync(nodePath.join(root, "out.log"), "line\n")
    fs.rmSync(nodePath.join(root, "out.log"))
    // inotify keeps the order: once this change is seen, every write above was too
    fs.writeFileSync(nodePath.join(root, "app.ts"), "2")
    await waitFor("the change of app.ts", () => w.changes.includes("app.ts"))
    expect(w.changes.every((c) => c === "app.ts")).toBe(true)
    expect(readdir).not.toHaveBeenCalled()
    expect(stat).not.toHaveBeenCalled()
    expect(w.errors).toEqual([])
  })

  it("a directory made after the setup is walked, its files included; a removed one is forgotten", async () => {
    const root = tree()
    fs.mkdirSync(nodePath.join(root, "src"))
    fs.mkdirSync(nodePath.join(root, "node_modules", "x"), { recursive: true })
    const w = await open(root, ["src/**/*.ts"])
    // made and written at once: the file may be there before the directory's watch
    fs.mkdirSync(nodePath.join(root, "src", "a", "b"), { recursive: true })
    fs.writeFileSync(nodePath.join(root, "src", "a", "b", "deep.ts"), "")
    await waitFor("deep.ts", () => w.changes.includes(nodePath.join("src", "a", "b", "deep.ts")))
    // a later write there is seen through the new directory's own watch
    w.changes.length = 0
    fs.writeFileSync(nodePath.join(root, "src", "a", "b", "deep.ts"), "again")
    await waitFor("deep.ts again", () => w.changes.includes(nodePath.join("src", "a", "b", "deep.ts")))
    // removed and made again: watched again
    fs.rmSync(nodePath.join(root, "src", "a"), { recursive: true })
    await waitFor("the removal of deep.ts", () => w.changes.length >= 2)
    w.changes.length = 0
    fs.mkdirSync(nodePath.join(root, "src", "a"))
    fs.writeFileSync(nodePath.join(root, "src", "a", "back.ts"), "")
    await waitFor("back.ts", () => w.changes.includes(nodePath.join("src", "a", "back.ts")))
    // left out: node_modules, and files the pattern does not match
    fs.writeFileSync(nodePath.join(root, "node_modules", "x", "y.ts"), "")
    fs.writeFileSync(nodePath.join(root, "src", "notes.md"), "")
    fs.writeFileSync(nodePath.join(root, "src", "last.ts"), "")
    await waitFor("last.ts", () => w.changes.includes(nodePath.join("src", "last.ts")))
    expect(w.changes).toEqual([nodePath.join("src", "a", "back.ts"), nodePath.join("src", "last.ts")])
    expect(w.errors).toEqual([])
  })

  it("a watched directory removed and made again at once is watched again", async () => {
    const root = tree()
    fs.mkdirSync(nodePath.join(root, "src", "a"), { recursive: true })
    const w = await open(root, ["src/**/*.ts"])
    // no wait between: the events of both come after, and the name still exists when they do
    fs.rmSync(nodePath.join(root, "src", "a"), { recursive: true })
    fs.mkdirSync(nodePath.join(root, "src", "a"))
    fs.writeFileSync(nodePath.join(root, "src", "a", "new.ts"), "1")
    const file = nodePath.join("src", "a", "new.ts")
    await waitFor("new.ts", () => w.changes.includes(file))
    // a later write is seen through the new directory's own watch
    w.changes.length = 0
    fs.writeFileSync(nodePath.join(root, "src", "a", "new.ts"), "2")
    await waitFor("new.ts again", () => w.changes.includes(file))
    expect(w.errors).toEqual([])
  })

  it("a root removed and made again at once is watched again", async () => {
    const root = tree()
    const src = nodePath.join(root, "src")
    fs.mkdirSync(src)
    const w = await open(src, ["*.ts"])
    fs.rmSync(src, { recursive: true })
    fs.mkdirSync(src)
    fs.writeFileSync(nodePath.join(src, "a.ts"), "1")
    await waitFor("a.ts", () => w.changes.includes("a.ts"))
    w.changes.length = 0
    fs.writeFileSync(nodePath.join(src, "a.ts"), "2")
    await waitFor("a.ts again", () => w.changes.includes("a.ts"))
    expect(w.errors).toEqual([])
  })

  it("a link to a directory above is walked once: the setup ends, and a change is named by its own path", async () => {
    const root = tree()
    fs.mkdirSync(nodePath.join(root, "src", "lib"), { recursive: true })
    fs.symlinkSync("..", nodePath.join(root, "src", "lib", "up"))
    fs.symlinkSync(nodePath.join(root, "src", "lib"), nodePath.join(root, "src", "again"))
    const readdir = vi.spyOn(fs.promises, "readdir")
    const w = await open(root, ["src/**/*.ts"])
    expect(w.ready()).toBe(true)
    expect(readdir.mock.calls.length).toBeLessThanOrEqual(3)
    fs.writeFileSync(nodePath.join(root, "src", "lib", "x.ts"), "")
    await waitFor("x.ts", () => w.changes.includes(nodePath.join("src", "lib", "x.ts")))
    // named by its own path, once: not again through a link
    fs.writeFileSync(nodePath.join(root, "src", "y.ts"), "")
    await waitFor("y.ts", () => w.changes.includes(nodePath.join("src", "y.ts")))
    expect(w.changes).toEqual([nodePath.join("src", "lib", "x.ts"), nodePath.join("src", "y.ts")])
  })

  it("two watched names linked to each other fail the setup with ELOOP", async () => {
    const root = tree()
    fs.mkdirSync(nodePath.join(root, "src"))
    fs.symlinkSync("b.js", nodePath.join(root, "src", "a.js"))
    fs.symlinkSync("a.js", nodePath.join(root, "src", "b.js"))
    const w = await open(root, ["src/**/*.js"])
    expect(w.ready()).toBe(false)
    expect(w.errors[0]).toMatch(/^ELOOP: too many symbolic links encountered, stat '.*[ab]\.js'$/)
  })
})
