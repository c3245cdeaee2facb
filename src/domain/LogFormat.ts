import { Schema } from "effect"
import { HumanDuration } from "./HumanDuration.js"

/** How a daemon's output lines are read when they are stored (docs/logs.md, "Structured logs"). */
export const LOG_FORMATS = ["text", "json", "logfmt", "auto"] as const
export type LogFormat = (typeof LOG_FORMATS)[number]
export const LogFormatName = Schema.Literal(...LOG_FORMATS).annotations({
  description:
    "How output lines are parsed when stored: text (not at all), json (one JSON object per line), logfmt (key=value pairs) or auto (each line as it looks)",
})

/** Severities, least severe first: `logs --level L` keeps L and those after it. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LogLevelName = Schema.Literal(...LOG_LEVELS)

/** The rank of a level (0 = trace); -1 for none. */
export const levelRank = (level: string | undefined): number =>
  level === undefined ? -1 : LOG_LEVELS.indexOf(level as LogLevel)

/** A whole number of lines, 1 or more. */
export const LineCount = Schema.Int.pipe(Schema.positive()).annotations({
  message: () => ({ message: "expected a whole number of lines, 1 or more", override: true }),
})

/** What `[daemons.<name>.logs]` and `[settings.logs]` share. */
export const logPolicyFields = {
  log_format: Schema.optional(LogFormatName),
  time_retention: Schema.optional(
    HumanDuration.annotations({
      description: "Prune stored lines older than this (checked at most hourly), e.g. 7d",
    }),
  ),
  line_retention: Schema.optional(
    LineCount.annotations({ description: "Keep only the newest N stored lines (checked at most hourly)" }),
  ),
}

/** A daemon's own archive command: `[settings.logs.archive_hook]`'s `command`, for this daemon. */
export const DaemonArchiveHook = Schema.NonEmptyTrimmedString.annotations({
  description:
    "Shell command that receives this daemon's lines about to be pruned, as JSON lines on stdin (instead of settings.logs.archive_hook.command; its batch_size still applies)",
})

/** `[daemons.<name>.logs]`: how this daemon's output is stored; unset keys fall back to `[settings.logs]`. */
export const DaemonLogs = Schema.Struct({
  ...logPolicyFields,
  archive_hook: Schema.optional(DaemonArchiveHook),
}).annotations({
  identifier: "DaemonLogs",
  description: "How the daemon's output is stored: log_format, time_retention, line_retention, archive_hook",
})
export type DaemonLogs = typeof DaemonLogs.Type
