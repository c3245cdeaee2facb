import { Effect, Layer, Stream } from "effect"
import { Control, type ControlShape } from "../../control/Control.js"
import { Restart } from "../../domain/Command.js"
import type { CommandError } from "../../domain/CommandErrors.js"
import { startLevels } from "../../domain/dependencyLevels.js"
import { EventLog } from "../../events/EventLog.js"
import type { DaemonState } from "../../supervisor/DaemonState.js"
import { Supervisor, type SupervisorShape } from "../../supervisor/Supervisor.js"

// Cascading restarts (docs/dependencies.md#restart_dependents): a daemon with
// `restart_dependents = true` that becomes ready in a new run (a restart for any reason: a retry,
// watch, a health check, a person, or a start after it was stopped) has its running dependents
// restarted, with reason `dependency`, through Control's `Restart` command (dependency order,
// each level once the one before it is ready). Anything that restarts a daemon through its
// lifecycle triggers it: nobody needs to call it. `restartDependents` is the step itself.

/**
 * The dependents of `id` to restart now that its current run is ready, in dependency order: those
 * that run (or start) with a process spawned before that run's (they talk to the previous run, or
 * to none). One spawned after it is left alone: it was started against this run (a start that
 * waited for it).
 */
export const dependentsToRestart = (
  states: ReadonlyArray<DaemonState>,
  id: string,
): ReadonlyArray<string> => {
  const dependency = states.find((r) => r.def.id.qualified === id)
  const since = dependency?.startedAt
  if (since == null) return []
  const stale = states.filter(
    (r) =>
      (r.status.type === "running" || r.status.type === "waiting") &&
      r.def.config.depends.includes(id) &&
      r.startedAt != null &&
      r.startedAt < since,
  )
  // in dependency order: a dependent of another one comes after it
  return startLevels(new Map(stale.map((r) => [r.def.id.qualified, r.def] as const))).flat()
}

/**
 * Restarts the running dependents of `id` that started before its current run
 * (`dependentsToRestart`), in dependency order, with reason `dependency`; returns their IDs
 * (empty: nothing to restart). The restart is sent and not waited for.
 */
export const restartDependents = (
  control: ControlShape,
  sup: SupervisorShape,
  id: string,
): Effect.Effect<ReadonlyArray<string>, CommandError> =>
  Effect.gen(function* () {
    const ids = dependentsToRestart(yield* sup.list, id)
    if (ids.length === 0) return ids
    yield* Effect.logInfo(`${id} restarted: restarting its dependents ${ids.join(", ")}`)
    yield* control.handle(
      new Restart({
        selection: { ids, all: false },
        reason: "dependency",
        detail: `${id} restarted`,
        wait: "none",
      }),
    )
    return ids
  })

/**
 * Follows the event log for as long as the scope lives: each readiness passed of a daemon with
 * `restart_dependents` restarts its dependents as `restartDependents` says.
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
              yield* restartDependents(control, sup, event.id).pipe(
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
