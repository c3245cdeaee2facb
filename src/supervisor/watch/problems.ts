import { Context, Effect, Layer, Ref } from "effect"

// What is wrong with a daemon's watcher now (it could not be set up, or failed since): shown by
// `status` next to the `[supervisor] watch:` line of the daemon's log (docs/watch.md).

export interface WatchProblemsShape {
  /** Records the problem of the daemon's watcher; undefined clears it (watching again, closed). */
  readonly set: (id: string, problem: string | undefined) => Effect.Effect<void>
  /** The problems now, by daemon ID. */
  readonly get: Effect.Effect<ReadonlyMap<string, string>>
}

export class WatchProblems extends Context.Tag("supervisor/WatchProblems")<
  WatchProblems,
  WatchProblemsShape
>() {}

export const makeWatchProblems: Effect.Effect<WatchProblemsShape> = Effect.map(
  Ref.make<ReadonlyMap<string, string>>(new Map()),
  (ref) => ({
    set: (id, problem) =>
      Ref.update(ref, (m) => {
        if (m.get(id) === problem) return m
        const next = new Map(m)
        if (problem === undefined) next.delete(id)
        else next.set(id, problem)
        return next
      }),
    get: Ref.get(ref),
  }),
)

export const WatchProblemsLive = Layer.effect(WatchProblems, makeWatchProblems)
