/**
 * The registry's watch of configuration files (src/registry/fileWatch.ts) on a real tree: a file
 * written beside them is no change, a configuration file written or created is, a missing
 * directory on the way to one is watched through its nearest ancestor, and a watched directory
 * that goes away is said as a change (the registry then sets the paths again).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect, Option, Queue } from "effect"
import { makeFileWatch } from "../../src/registry/fileWatch.js"

const roots: Array<string> = []
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
})

const tree = () => {
  const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-registry-watch-")))
  roots.push(root)
  return root
}

/** The next change offered (5 s at most). */
const next = (changes: Queue.Queue<string>) =>
  Queue.take(changes).pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("no change in 5 s") }),
  )

describe("the registry's file watch", () => {
  it.live("a file written beside a configuration is no change; the configuration written is", () =>
    Effect.gen(function* () {
      const root = tree()
      const config = nodePath.join(root, "shop", "supervisor.toml")
      fs.mkdirSync(nodePath.dirname(config))
      fs.writeFileSync(config, "")
      const changes = yield* Queue.unbounded<string>()
      const watch = yield* makeFileWatch(changes)
      yield* watch.setPaths([config])
      // one more look, for a file written between the caller's read and the watch
      expect(yield* next(changes)).toBe(nodePath.dirname(config))
      for (let i = 0; i < 200; i++) fs.appendFileSync(nodePath.join(root, "shop", "dev.log"), "line\n")
      fs.writeFileSync(config, "[daemons.web]\n")
      // inotify keeps the order: the log's writes came before, and none was offered
      expect(yield* next(changes)).toBe(config)
      // the same paths again: nothing new to watch, nothing offered
      yield* watch.setPaths([config])
      expect(Option.isNone(yield* Queue.poll(changes))).toBe(true)
    }).pipe(Effect.scoped),
  )

  it.live("a file under a directory made later is watched through its nearest ancestor", () =>
    Effect.gen(function* () {
      const root = tree()
      const config = nodePath.join(root, "later", ".config", "supervisor.toml")
      const changes = yield* Queue.unbounded<string>()
      const watch = yield* makeFileWatch(changes)
      yield* watch.setPaths([config])
      expect(yield* next(changes)).toBe(root)
      fs.writeFileSync(nodePath.join(root, "unrelated.txt"), "")
      fs.mkdirSync(nodePath.join(root, "later"))
      expect(yield* next(changes)).toBe(nodePath.join(root, "later"))
      // the caller sets the paths again: the new directory is watched from then on
      yield* watch.setPaths([config])
      expect(yield* next(changes)).toBe(nodePath.join(root, "later"))
      fs.mkdirSync(nodePath.join(root, "later", ".config"))
      expect(yield* next(changes)).toBe(nodePath.join(root, "later", ".config"))
      yield* watch.setPaths([config])
      expect(yield* next(changes)).toBe(nodePath.join(root, "later", ".config"))
      fs.writeFileSync(config, "")
      expect(yield* next(changes)).toBe(config)
    }).pipe(Effect.scoped),
  )

  it.live("a watched directory removed and made again at once is said as a change", () =>
    Effect.gen(function* () {
      const root = tree()
      const dir = nodePath.join(root, "tree")
      const config = nodePath.join(dir, "supervisor.toml")
      fs.mkdirSync(dir)
      const changes = yield* Queue.unbounded<string>()
      const watch = yield* makeFileWatch(changes)
      yield* watch.setPaths([config])
      expect(yield* next(changes)).toBe(dir)
      // no wait between: the directory stands again when its removal is seen
      fs.rmSync(dir, { recursive: true })
      fs.mkdirSync(dir)
      expect(yield* next(changes)).toBe(dir)
      // set again: the new directory is watched
      yield* watch.setPaths([config])
      expect(yield* next(changes)).toBe(dir)
      fs.writeFileSync(config, "")
      expect(yield* next(changes)).toBe(config)
    }).pipe(Effect.scoped),
  )

  it.live("a watched directory removed is said as a change", () =>
    Effect.gen(function* () {
      const root = tree()
      const dir = nodePath.join(root, "tree")
      fs.mkdirSync(dir)
      const changes = yield* Queue.unbounded<string>()
      const watch = yield* makeFileWatch(changes)
      yield* watch.setPaths([nodePath.join(dir, "supervisor.toml")])
      expect(yield* next(changes)).toBe(dir)
      fs.rmSync(dir, { recursive: true })
      expect(yield* next(changes)).toBe(dir)
      // set again: its parent is watched now, and the directory's return is seen
      yield* watch.setPaths([nodePath.join(dir, "supervisor.toml")])
      expect(yield* next(changes)).toBe(root)
      fs.mkdirSync(dir)
      expect(yield* next(changes)).toBe(dir)
    }).pipe(Effect.scoped),
  )
})
