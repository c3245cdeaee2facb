import { type ConfigProblem, ConflictingKeys } from "../domain/ConfigProblem.js"
import type { DaemonOptions } from "../domain/DaemonOptions.js"

/** Where a daemon key was last set: its file and, when found, its line. */
type Locate = (key: string) => { readonly file: string; readonly line?: number }

/**
 * What a daemon's `restart` says against its other keys, once its files are merged: `always` with
 * `cron` is a problem (the schedule starts it, `always` would keep it running between two
 * schedules); `never` with a `retry` is a warning (the retries are never used).
 */
export const restartConflicts = (
  o: Pick<DaemonOptions, "restart" | "cron" | "retry">,
  name: string,
  locate: Locate,
): { readonly problem?: ConfigProblem; readonly warning?: string } => {
  if (o.restart === "always" && o.cron !== undefined)
    return {
      problem: new ConflictingKeys({
        ...locate("restart"),
        key: `daemons.${name}.restart`,
        message: 'restart = "always" and `cron` are both set: a cron daemon is started by its schedule',
        hint: 'remove `restart` (or set it to "on-failure") to run it on its schedule, or remove `cron` to keep it running',
      }),
    }
  if (o.restart === "never" && o.retry !== undefined && o.retry !== false && o.retry !== 0) {
    const at = locate("retry")
    return {
      warning: `${at.file}${at.line === undefined ? "" : `:${at.line}`}: daemons.${name}.retry: has no effect with restart = "never"; remove it, or set restart = "on-failure"`,
    }
  }
  return {}
}
