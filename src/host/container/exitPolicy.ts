// `--exit-on-failure` of container mode: the first daemon to fail for good (the `DaemonFailed`
// event: no retry left, not ready, not spawned) stops every daemon in order, and the supervisor
// exits non-zero. Without it a failed daemon stays failed and the supervisor keeps running.
import { Effect, Option, type Scope, Stream } from "effect"
import type { EventLogShape } from "../../events/EventLog.js"

/**
 * Subscribes now (in the caller's scope, so that no failure after this point is missed) and
 * forks the watch; `onFailure` runs once, with the daemon and why it failed.
 */
export const watchFailures = (
  events: EventLogShape,
  onFailure: (id: string, message: string) => Effect.Effect<void>,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const stream = yield* events.open()
    yield* stream.pipe(
      Stream.filterMap((e) => (e._tag === "DaemonFailed" ? Option.some(e) : Option.none())),
      Stream.runHead,
      Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (e) => onFailure(e.id, e.message) })),
      Effect.forkScoped,
    )
  })
