import * as fs from "node:fs"
import * as nodePath from "node:path"
import { type FSWatcher, watch } from "chokidar"
import { Duration, Effect, Queue } from "effect"

/** The directory itself when it exists, else its nearest existing ancestor. */
const nearestExisting = (dir: string): string => {
  for (let d = dir; ; d = nodePath.dirname(d)) {
    if (fs.existsSync(d) || nodePath.dirname(d) === d) return d
  }
}

/** Time given to chokidar to set up the watch of a newly added directory. */
const SETUP = Duration.millis(300)

/**
 * Watches a set of files that may not exist yet. chokidar (v4) does not watch a missing path, so
 * the directories are watched instead, one level deep: the nearest existing directory of each
 * file, its events filtered to the files and the directories on the way to them. Every add,
 * change or removal of one of them is offered to `changes`; the caller then sets the paths again
 * (a directory that appeared is watched from then on). Closed with the scope.
 */
export const makeFileWatch = (changes: Queue.Queue<string>) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    let relevant = new Set<string>()
    let dirs = new Set<string>()
    const watcher: FSWatcher = yield* Effect.acquireRelease(
      Effect.sync(() =>
        watch([], {
          ignoreInitial: true,
          depth: 0,
          ignored: (path) => !relevant.has(path) && !dirs.has(path),
        })
          .on("all", (_event, path) => {
            if (relevant.has(path)) Queue.unsafeOffer(changes, path)
          })
          // a file that cannot be watched is still reloaded every watch_interval
          .on("error", () => {}),
      ),
      (w) => Effect.promise(() => w.close()),
    )
    /** Watches exactly `files` from now on. */
    const setPaths = (files: Iterable<string>) =>
      Effect.suspend(() => {
        const nextRelevant = new Set<string>()
        const nextDirs = new Set<string>()
        for (const file of files) {
          nextRelevant.add(file)
          const parent = nodePath.dirname(file)
          const existing = nearestExisting(parent)
          nextDirs.add(existing)
          // the directories still missing between it and the file: their creation matters
          for (let d = parent; d !== existing && nodePath.dirname(d) !== d; d = nodePath.dirname(d))
            nextRelevant.add(d)
        }
        const added = [...nextDirs].filter((d) => !dirs.has(d))
        const removed = [...dirs].filter((d) => !nextDirs.has(d))
        relevant = nextRelevant
        dirs = nextDirs
        if (removed.length > 0) watcher.unwatch(removed)
        if (added.length === 0) return Effect.void
        watcher.add(added)
        // chokidar sets the new watches up in the background: one more look once that is surely
        // done, for a file written meanwhile
        return Queue.offer(changes, added[0]!).pipe(Effect.delay(SETUP), Effect.forkIn(scope), Effect.asVoid)
      })
    return { setPaths }
  })
