import { Effect } from "effect"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { startFailed } from "../supervisor/daemon/outcomes.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"

/** How many output lines a dependency that did not complete shows (as a failed start does). */
const OUTPUT_LINES = 20

/**
 * Waits for a daemon's run to end (a `completed` dependency that was ready or already running):
 * `Completed` when it exited 0, else `StartFailed` with why and its last output lines.
 */
export const awaitCompletion =
  (sup: SupervisorShape) =>
  (id: string): Effect.Effect<StartOutcome> =>
    Effect.gen(function* () {
      const ended = yield* Effect.either(sup.wait(id))
      if (ended._tag === "Left")
        return startFailed(id, `${id} was removed before it completed`, undefined, [], 1)
      const { status } = ended.right
      if (endedWithSuccess(ended.right)) return { _tag: "Completed", id } as const
      const output = yield* sup.lastLines(id, OUTPUT_LINES)
      const message =
        status.type === "stopped"
          ? `${id} was stopped before it completed`
          : `${id} ${status.message ?? "failed"}`
      const exit = { code: status.exit_code ?? null, signal: status.signal ?? null, known: true }
      return startFailed(id, message, exit, output, 1)
    })

/**
 * Whether a daemon that does not run ended with a success: `stopped` with an exit code of its
 * `success_exit_codes` (by default 0), not by a signal.
 */
export const endedWithSuccess = (r: DaemonState): boolean =>
  r.status.type === "stopped" &&
  r.status.signal == null &&
  r.status.exit_code != null &&
  r.def.config.success_exit_codes.includes(r.status.exit_code)

/** Whether a daemon's last run, spawned (or adopted) by this supervisor, ended with a success on its own. */
export const completedHere = (r: DaemonState): boolean => (r.spawns ?? 0) > 0 && endedWithSuccess(r)

/** `completedHere` by ID: false for a daemon the supervisor does not know. */
export const completedHereById =
  (sup: SupervisorShape) =>
  (id: string): Effect.Effect<boolean> =>
    Effect.map(Effect.option(sup.get(id)), (r) => r._tag === "Some" && completedHere(r.value))
