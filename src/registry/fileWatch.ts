import { type FSWatcher, watch } from "chokidar"
import { Effect, Queue } from "effect"

/**
 * A chokidar watcher over a set of files that may not exist yet (chokidar watches the nearest
 * existing parent for them): every add, change or removal is offered to `changes`. Closed with
 * the scope.
 */
export const makeFileWatch = (changes: Queue.Queue<string>) =>
  Effect.gen(function* () {
    const watcher: FSWatcher = yield* Effect.acquireRelease(
      Effect.sync(() =>
        watch([], { ignoreInitial: true, persistent: false })
          .on("all", (_event, path) => {
            Queue.unsafeOffer(changes, path)
          })
          // a file that cannot be watched is still reloaded every watch_interval
          .on("error", () => {}),
      ),
      (w) => Effect.promise(() => w.close()),
    )
    let watched = new Set<string>()
    /** Watches exactly `paths` from now on. */
    const setPaths = (paths: Iterable<string>) =>
      Effect.sync(() => {
        const next = new Set(paths)
        const added = [...next].filter((p) => !watched.has(p))
        const removed = [...watched].filter((p) => !next.has(p))
        if (added.length > 0) watcher.add(added)
        if (removed.length > 0) watcher.unwatch(removed)
        watched = next
      })
    return { setPaths }
  })
