// One daemon started by its qualified ID through the command protocol: what the supervisor's own
// actors (cron, the shell presence, the proxy) ask, as a `Start` command with their reason.
import { Effect } from "effect"
import { type Selection, Start } from "../domain/Command.js"
import type { CommandError } from "../domain/CommandErrors.js"
import { instanceIndexOf } from "../domain/Instances.js"
import type { Reason } from "../domain/Reason.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { ControlShape } from "./Control.js"

/** A selection of one daemon by its qualified ID. */
export const selectOne = (id: string): Selection => ({ ids: [id], all: false })

/**
 * The daemon's own outcome among a start's (its dependencies' come first); for a replicated
 * daemon, its first instance that did not start, else its first instance's.
 */
export const outcomeOf = (outcomes: ReadonlyArray<StartOutcome>, id: string): StartOutcome | undefined => {
  const own = outcomes.find((o) => o.id === id)
  if (own !== undefined) return own
  const instances = outcomes.filter((o) => instanceIndexOf(o.id, id) !== undefined)
  const failed = instances.find(
    (o) => o._tag !== "Ready" && o._tag !== "AlreadyRunning" && o._tag !== "Completed",
  )
  return failed ?? instances[0] ?? outcomes[outcomes.length - 1]
}

/**
 * Starts `id` with its dependencies (from the project that configures it, else from the definition
 * it last ran with); `force` restarts it, never its dependencies. Its own outcome.
 */
export const startOne = (
  control: ControlShape,
  id: string,
  options: { readonly force: boolean; readonly reason: Reason },
): Effect.Effect<StartOutcome, CommandError> =>
  control
    .handle(
      new Start({ selection: selectOne(id), force: options.force, reason: options.reason, wait: "ready" }),
    )
    .pipe(
      Effect.flatMap((outcomes) => {
        const own = outcomeOf(outcomes, id)
        // a `ready` start answers an outcome per daemon it started: none is a bug, not a failure
        return own === undefined
          ? Effect.dieMessage(`the start of ${id} answered no outcome`)
          : Effect.succeed(own)
      }),
    )
