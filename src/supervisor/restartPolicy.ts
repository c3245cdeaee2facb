import { retryLimit } from "../domain/DaemonConfig.js"
import type { RestartPolicy } from "../domain/DaemonOptions.js"
import type { ExitStatus } from "../process/ProcessService.js"

// What a daemon's `restart` and `success_exit_codes` decide when its process exits on its own
// (docs/states.md, "Restart policy"). A stop somebody asked for never reaches these: it is not
// an exit on its own.

/** The keys of a daemon's configuration these decisions read. */
export interface RestartKeys {
  readonly restart: RestartPolicy
  readonly retry: number | boolean
  readonly success_exit_codes: ReadonlyArray<number>
}

/**
 * Whether an exit is a success: a known exit code listed in `success_exit_codes`. A signal, or an
 * exit whose status cannot be known (an adopted process), is a failure.
 */
export const isSuccessExit = (status: ExitStatus, codes: ReadonlyArray<number>): boolean =>
  status.known && status.signal === null && status.code !== null && codes.includes(status.code)

/**
 * How many restarts a sequence of runs allows: `always` restarts forever, `never` not at all,
 * `on-failure` as many as `retry` says (Infinity for `retry = true`).
 */
export const restartLimit = (keys: Pick<RestartKeys, "restart" | "retry">): number =>
  keys.restart === "always" ? Number.POSITIVE_INFINITY : keys.restart === "never" ? 0 : retryLimit(keys.retry)

/**
 * Whether a run that ended on its own is followed by another run after the backoff (when the
 * sequence has one left): a failure unless the policy is `never`, a success only with `always`.
 */
export const restartsAfter = (keys: RestartKeys, status: ExitStatus): boolean =>
  isSuccessExit(status, keys.success_exit_codes) ? keys.restart === "always" : keys.restart !== "never"
