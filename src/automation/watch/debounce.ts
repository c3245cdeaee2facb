import { type Duration, Effect, FiberMap, type Scope } from "effect"

/** Gathers the changes of each daemon and acts once they have been quiet for `delay`. */
export interface Debouncer {
  /** A file of the daemon changed: its timer starts over. */
  readonly touch: (id: string, file: string) => Effect.Effect<void>
  /** Drops what is pending for the daemon (its watcher closed). */
  readonly cancel: (id: string) => Effect.Effect<void>
}

/**
 * A trailing debounce per daemon: `fire` gets the files changed (first change first, each once)
 * `delay(id)` after the last change of a burst (read at each change: a new setting applies to
 * the next change). A burst that comes while `fire` runs is gathered for
 * the next one: `fire` is never interrupted half way.
 */
export const makeDebouncer = (
  delay: (id: string) => Duration.DurationInput,
  fire: (id: string, files: ReadonlyArray<string>) => Effect.Effect<void>,
): Effect.Effect<Debouncer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const timers = yield* FiberMap.make<string>()
    const pending = new Map<string, Set<string>>()
    const due = (id: string) =>
      Effect.sleep(delay(id)).pipe(
        Effect.zipRight(
          Effect.uninterruptible(
            Effect.suspend(() => {
              const files = pending.get(id)
              pending.delete(id)
              return files === undefined || files.size === 0 ? Effect.void : fire(id, [...files])
            }),
          ),
        ),
      )
    return {
      touch: (id, file) =>
        Effect.suspend(() => {
          const files = pending.get(id) ?? new Set<string>()
          files.add(file)
          pending.set(id, files)
          return FiberMap.run(timers, id, due(id))
        }).pipe(Effect.asVoid),
      cancel: (id) =>
        Effect.suspend(() => {
          pending.delete(id)
          return FiberMap.remove(timers, id)
        }),
    }
  })

/** What the daemon's log says changed: `src/app.js changed`, `a.js and 2 other files changed`. */
export const changedText = (files: ReadonlyArray<string>): string => {
  const [first] = files
  if (files.length <= 1) return `${first ?? "a watched file"} changed`
  const others = files.length - 1
  return `${first} and ${others} other file${others === 1 ? "" : "s"} changed`
}
