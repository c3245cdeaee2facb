import { Effect, Layer, Stream } from "effect"
import { Control, type ControlShape } from "../../control/Control.js"
import { dependentsToRestart } from "../../control/dependents.js"
import { RestartDependents } from "../../domain/Command.js"
import { EventLog } from "../../events/EventLog.js"
import { Supervisor, type SupervisorShape } from "../../supervisor/Supervisor.js"

// Cascading restarts (docs/dependencies.md#restart_dependents): a daemon with
// `restart_dependents = true` that becomes ready in a new run (a restart for any reason: a retry,
// watch, a health check, a person, or a start after it was stopped) has its running dependents
// restarted, with reason `dependency`, by Control's `RestartDependents` command (which picks them,
// leaves out those a command under way restarts itself, and restarts the rest in dependency
// order). Anything that restarts a daemon through its lifecycle triggers it: nobody needs to call it.

/**
 * Follows the event log for as long as the scope lives: each readiness passed of a daemon with
 * `restart_dependents` whose dependents run from before it sends `RestartDependents` for it.
 */
export const followReadiness = (control: ControlShape, sup: SupervisorShape) =>
  Effect.gen(function* () {
    const events = yield* EventLog
    // subscribed here, before the fiber runs: no readiness published from now on is missed
    const stream = yield* events.open()
    yield* Effect.forkScoped(
      Stream.runForEach(stream, (event) =>
        event._tag !== "ReadinessPassed"
          ? Effect.void
          : Effect.gen(function* () {
              const r = yield* Effect.option(sup.get(event.id))
              if (r._tag === "None" || !r.value.def.config.restart_dependents) return
              // no command for a readiness with no stale dependent (a first start): Control decides again
              if (dependentsToRestart(yield* sup.list, event.id).length === 0) return
              yield* control
                .handle(new RestartDependents({ id: event.id, reason: "dependency" }))
                .pipe(
                  Effect.catchAll((e) =>
                    Effect.logWarning(`cannot restart the dependents of ${event.id}: ${e.message}`),
                  ),
                )
            }),
      ),
    )
  })

/** The cascading restarts of the supervisor process. */
export const CascadeLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    yield* followReadiness(yield* Control, yield* Supervisor)
  }),
)
