import { FiberRef, LogLevel } from "effect"
import type { Settings, SupervisorLogLevel } from "../domain/Settings.js"

const LEVELS: Readonly<Record<SupervisorLogLevel, LogLevel.LogLevel>> = {
  off: LogLevel.None,
  error: LogLevel.Error,
  warn: LogLevel.Warning,
  info: LogLevel.Info,
  debug: LogLevel.Debug,
  trace: LogLevel.Trace,
}

/**
 * The level of the supervisor's own log: `settings.general.log_file_level` (default: log_level)
 * when its output is the supervisor.log file (started in the background), else
 * `settings.general.log_level` (a terminal or a pipe). The lines it writes without a level (its
 * start and stop) are always written.
 */
export const hostLogLevel = (settings: Settings, toFile: boolean): LogLevel.LogLevel =>
  LEVELS[
    toFile ? (settings.general.log_file_level ?? settings.general.log_level) : settings.general.log_level
  ]

/** Applies the level to the calling fiber and every fiber it starts from now on. */
export const setHostLogLevel = (level: LogLevel.LogLevel) =>
  FiberRef.set(FiberRef.currentMinimumLogLevel, level)
