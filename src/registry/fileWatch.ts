import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect, Queue } from "effect"

/** The directory itself when it exists, else its nearest existing ancestor. */
const nearestExisting = (dir: string): string => {
  for (let d = dir; ; d = nodePath.dirname(d)) {
    if (fs.existsSync(d) || nodePath.dirname(d) === d) return d
  }
}

/**
 * Watches a set of files that may not exist yet: the nearest existing directory of each file is
 * watched, one level deep, with the system's own watch (`fs.watch`: inotify, FSEvents), and an
 * event is kept only when it names one of the files or a directory on the way to one. An event
 * costs a name lookup: no directory is read again, so a daemon writing beside the configuration
 * (a log or a database in the project's root) costs the supervisor next to nothing. Every add,
 * change or removal of a watched path is offered to `changes`; the caller then sets the paths
 * again (a directory that appeared is watched from then on). Closed with the scope.
 */
export const makeFileWatch = (changes: Queue.Queue<string>) =>
  Effect.gen(function* () {
    let relevant = new Set<string>()
    const watchers = new Map<string, fs.FSWatcher>()
    const close = (dir: string) => {
      watchers.get(dir)?.close()
      watchers.delete(dir)
    }
    /** A watched directory that went away: said as a change, so that its nearest ancestor is watched. */
    const lost = (dir: string) => {
      close(dir)
      Queue.unsafeOffer(changes, dir)
    }
    /** Whether `dir` is watched now. */
    const open = (dir: string): boolean => {
      try {
        const watcher = fs.watch(dir, { persistent: false }, (event, name) => {
          if (name === null) return lost(dir)
          const path = nodePath.join(dir, name.toString())
          if (relevant.has(path)) return void Queue.unsafeOffer(changes, path)
          // the directory itself removed (its own name: it may stand again already, another
          // directory that this watch does not see), or a name created or removed in it
          if (event === "rename" && (name.toString() === nodePath.basename(dir) || !fs.existsSync(dir)))
            lost(dir)
        })
        // a watch that failed: its files are still reloaded every watch_interval, which tries again
        watcher.on("error", () => close(dir))
        watchers.set(dir, watcher)
        return true
      } catch {
        // gone between the look and the watch, or out of watches: likewise
        return false
      }
    }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const watcher of watchers.values()) watcher.close()
        watchers.clear()
      }),
    )
    /** Watches exactly `files` from now on. */
    const setPaths = (files: Iterable<string>) =>
      Effect.suspend(() => {
        const nextRelevant = new Set<string>()
        const dirs = new Set<string>()
        for (const file of files) {
          nextRelevant.add(file)
          const parent = nodePath.dirname(file)
          const existing = nearestExisting(parent)
          dirs.add(existing)
          // the directories still missing between it and the file: their creation matters
          for (let d = parent; d !== existing && nodePath.dirname(d) !== d; d = nodePath.dirname(d))
            nextRelevant.add(d)
        }
        relevant = nextRelevant
        for (const dir of [...watchers.keys()]) if (!dirs.has(dir)) close(dir)
        const added = [...dirs].filter((d) => !watchers.has(d) && open(d))
        // a file written between the caller's read and this watch: one more look
        return added.length === 0 ? Effect.void : Queue.offer(changes, added[0]!).pipe(Effect.asVoid)
      })
    return { setPaths }
  })
