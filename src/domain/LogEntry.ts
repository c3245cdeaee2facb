import { Schema } from "effect"
import { LogLevelName } from "./LogFormat.js"

/** One log line of a daemon, as the API and the CLI show it (spec: "Log entry"). */
export const LogEntry = Schema.Struct({
  id: Schema.Int.annotations({ description: "Increasing per entry of one daemon, across clears" }),
  timestamp: Schema.String.annotations({
    description: "When the supervisor read the line, local time, format YYYY-MM-DD HH:MM:SS",
  }),
  daemon_id: Schema.String.annotations({ description: "Qualified daemon ID" }),
  message: Schema.String.annotations({ description: "One log line" }),
  level: Schema.optional(
    LogLevelName.annotations({
      description:
        "The line's severity, when the daemon's log_format parsed one (json, logfmt or auto): trace, debug, info, warn, error or fatal",
    }),
  ),
  fields: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description:
        "The line's keys and values, when the daemon's log_format parsed it: a JSON object as written, or logfmt pairs (values as strings, a bare key as true)",
    }),
  ),
}).annotations({ identifier: "LogEntry" })
export type LogEntry = typeof LogEntry.Type

/**
 * One line given to `logs.archive_hook.command` before it is pruned (a JSON line on its stdin):
 * the entry as `logs --json` prints it, and its time in RFC 3339 (UTC).
 */
export const ArchivedLogEntry = Schema.Struct({
  ...LogEntry.fields,
  time: Schema.String.annotations({
    description: "When the supervisor read the line, RFC 3339 in UTC (to the second)",
  }),
}).annotations({ identifier: "ArchivedLogEntry" })
export type ArchivedLogEntry = typeof ArchivedLogEntry.Type

/** The epoch ms of a `YYYY-MM-DD HH:MM:SS` timestamp (local time). */
export const parseLogTimestamp = (timestamp: string): number => {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(timestamp)
  if (m === null) return Number.NaN
  return new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!).getTime()
}

/** RFC 3339 in UTC, whole seconds, of a `YYYY-MM-DD HH:MM:SS` timestamp; undefined when it is none. */
export const logTimeRfc3339 = (timestamp: string): string | undefined => {
  const ms = parseLogTimestamp(timestamp)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z")
}

/** Emitted in a log stream when the daemon's logs were cleared (spec: "Log control object"). */
export const LogClear = Schema.Struct({
  _clear: Schema.Literal(true),
  _gen: Schema.Int.annotations({ description: "The new log generation" }),
}).annotations({ identifier: "LogClear" })
export type LogClear = typeof LogClear.Type

/** One object of the log tail stream. */
export const LogStreamItem = Schema.Union(LogEntry, LogClear).annotations({ identifier: "LogStreamItem" })
export type LogStreamItem = typeof LogStreamItem.Type

export const isLogClear = (item: LogStreamItem): item is LogClear => "_clear" in item

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** `YYYY-MM-DD HH:MM:SS` in the local time zone. */
export const formatLogTimestamp = (epochMillis: number): string => {
  const d = new Date(epochMillis)
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}
