import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { ResolvedDaemon } from "../domain/ResolvedConfig.js"
import type { Warnings } from "./model.js"

// A daemon's `restart`, `success_exit_codes` and `restart_dependents` for the export targets.

/** `retry` as the daemon's `restart` applies it: none with `never`, without limit with `always`. */
export const effectiveRetry = (c: Pick<DaemonConfig, "restart" | "retry">): number | boolean =>
  c.restart === "never" ? false : c.restart === "always" ? true : c.retry

/** Whether `success_exit_codes` is other than the default `[0]`. */
export const customSuccessCodes = (c: Pick<DaemonConfig, "success_exit_codes">): boolean =>
  c.success_exit_codes.length !== 1 || c.success_exit_codes[0] !== 0

/** A warning for each of these keys the target cannot carry (those it maps say so in `mapped`). */
export const warnRestartKeys = (
  d: ResolvedDaemon,
  w: Warnings,
  target: string,
  mapped: { readonly successCodes?: boolean; readonly dependents?: boolean } = {},
): void => {
  const c = d.config
  const id = d.id.qualified
  if (!mapped.successCodes && customSuccessCodes(c))
    w.add(
      id,
      "success_exit_codes",
      `(${c.success_exit_codes.join(", ")}) has no ${target} equivalent: an exit other than 0 is a failure there`,
    )
  if (!mapped.dependents && c.restart_dependents)
    w.add(id, "restart_dependents", `has no ${target} equivalent: its dependents are not restarted with it`)
}
