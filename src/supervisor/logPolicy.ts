// How a daemon's output is stored: its `[daemons.<name>.logs]` keys, else `[settings.logs]`.
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { Settings } from "../domain/Settings.js"
import type { FollowOptions } from "../logs/LogStore.js"

/** What the log store is told when it follows the daemon's output. */
export const followOptionsOf = (config: DaemonConfig, settings: Settings): FollowOptions => ({
  format: config.logs?.log_format ?? settings.logs.log_format,
})
