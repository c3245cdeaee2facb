import { Effect, Ref } from "effect"
import type { DaemonState } from "../supervisor/DaemonState.js"

/** One command's restart under way: the daemons it restarts, and when it began (epoch ms, as `startedAt`). */
interface Underway {
  readonly ids: ReadonlySet<string>
  readonly since: number
}

/**
 * The restarts that commands are carrying out now (a `Restart`, `start --force`): a cascade
 * leaves a dependent to the command that restarts it anyway, after its dependencies, instead of
 * restarting it a second time (docs/dependencies.md#restart_dependents).
 */
export interface RestartsUnderway {
  /** Runs `effect` (a command's start) with `ids` marked as restarted by it until it ends. */
  readonly during: <A, E, R>(
    ids: ReadonlyArray<string>,
    effect: Effect.Effect<A, E, R>,
  ) => Effect.Effect<A, E, R>
  /**
   * Whether a command under way will still restart this daemon: it names it, and the daemon's
   * current run began before that command did (once restarted by it, its run is a new one).
   */
  readonly awaits: (state: DaemonState) => Effect.Effect<boolean>
}

export const makeRestartsUnderway: Effect.Effect<RestartsUnderway> = Effect.map(
  Ref.make<ReadonlyArray<Underway>>([]),
  (underway) => ({
    during: (ids, effect) =>
      ids.length === 0
        ? effect
        : Effect.acquireUseRelease(
            // the wall clock, as each run's `startedAt`
            Effect.sync((): Underway => ({ ids: new Set(ids), since: Date.now() })).pipe(
              Effect.tap((entry) => Ref.update(underway, (all) => [...all, entry])),
            ),
            () => effect,
            (entry) => Ref.update(underway, (all) => all.filter((e) => e !== entry)),
          ),
    awaits: (state) =>
      Effect.map(Ref.get(underway), (all) =>
        all.some(
          (e) =>
            e.ids.has(state.def.id.qualified) && (state.startedAt === null || state.startedAt <= e.since),
        ),
      ),
  }),
)
