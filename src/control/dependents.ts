// `RestartDependents` (docs/dependencies.md#restart_dependents): the dependents of a daemon that
// became ready in a new run, restarted with reason `dependency`, except those that a command under
// way restarts itself (`restart db api`, `restart --all`): each dependent restarts once.
import { Effect } from "effect"
import type { RestartDependents } from "../domain/Command.js"
import type { CommandError } from "../domain/CommandErrors.js"
import { startLevels } from "../domain/dependencyLevels.js"
import type { Reason } from "../domain/Reason.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import type { RestartsUnderway } from "./restarting.js"

/**
 * The dependents of `id` to restart now that its current run is ready, in dependency order: those
 * that run (or start) with a process spawned before that run's (they talk to the previous run, or
 * to none). One spawned after it is left alone: it was started against this run (a start that
 * waited for it).
 */
export const dependentsToRestart = (
  states: ReadonlyArray<DaemonState>,
  id: string,
): ReadonlyArray<DaemonState> => {
  const dependency = states.find((r) => r.def.id.qualified === id)
  const since = dependency?.startedAt
  if (since == null) return []
  const stale = new Map(
    states
      .filter(
        (r) =>
          (r.status.type === "running" || r.status.type === "waiting") &&
          r.def.config.depends.includes(id) &&
          r.startedAt != null &&
          r.startedAt < since,
      )
      .map((r) => [r.def.id.qualified, r] as const),
  )
  // in dependency order: a dependent of another one comes after it
  return startLevels(new Map([...stale].map(([key, r]) => [key, r.def] as const)))
    .flat()
    .map((key) => stale.get(key)!)
}

export interface DependentsDeps {
  readonly sup: SupervisorShape
  readonly underway: RestartsUnderway
  /** Restarts `ids` in dependency order without waiting (a `Restart` with `wait: "none"`). */
  readonly restart: (
    ids: ReadonlyArray<string>,
    reason: Reason,
    detail: string,
  ) => Effect.Effect<unknown, CommandError>
}

/** Handles `RestartDependents`: which dependents it restarted, and which it left to a command. */
export const restartDependents = (deps: DependentsDeps, c: RestartDependents) =>
  Effect.gen(function* () {
    const restarted: Array<string> = []
    const left: Array<string> = []
    for (const r of dependentsToRestart(yield* deps.sup.list, c.id))
      ((yield* deps.underway.awaits(r)) ? left : restarted).push(r.def.id.qualified)
    if (left.length > 0)
      yield* Effect.logInfo(`${c.id} restarted: ${left.join(", ")} left to the command restarting them`)
    if (restarted.length > 0) {
      yield* Effect.logInfo(`${c.id} restarted: restarting its dependents ${restarted.join(", ")}`)
      yield* deps.restart(restarted, c.reason, `${c.id} restarted`)
    }
    return { restarted, left_to_commands: left }
  })
