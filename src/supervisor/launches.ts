import { Effect } from "effect"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { WithLock } from "./locks.js"

/**
 * The latest start of each daemon: a start superseded by a newer one (a concurrent restart or
 * `start --force`) reports the newer start's outcome instead of "interrupted".
 */
export const makeLaunches = (withLock: WithLock) => {
  const launches = new Map<string, { readonly gen: number; readonly outcome: Effect.Effect<StartOutcome> }>()
  let launchCount = 0
  /** Records the newest start of a daemon (called under its lock); its generation. */
  const note = (id: string, outcome: Effect.Effect<StartOutcome>) => {
    const gen = ++launchCount
    launches.set(id, { gen, outcome })
    return gen
  }
  const followSuperseded = (
    id: string,
    gen: number,
    outcome: Effect.Effect<StartOutcome>,
  ): Effect.Effect<StartOutcome> =>
    outcome.pipe(
      Effect.flatMap((o) =>
        o._tag !== "Interrupted"
          ? Effect.succeed(o)
          : // Under the lock: a newer start has registered itself by the time it is released.
            withLock(id)(Effect.sync(() => launches.get(id))).pipe(
              Effect.flatMap((latest) =>
                latest !== undefined && latest.gen > gen
                  ? followSuperseded(id, latest.gen, latest.outcome)
                  : Effect.succeed(o),
              ),
            ),
      ),
    )
  return { note, followSuperseded }
}
