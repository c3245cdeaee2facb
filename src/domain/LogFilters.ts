// The filters of a logs query (`supervisor logs`, the `Logs` and `Tail` commands, the CLI's log
// routes): one set of fields, so every way of asking reads the same lines.
import { Schema } from "effect"
import { LogLevelName } from "./LogFormat.js"

export const LogFilters = Schema.Struct({
  /** The last N entries (of the merged view, for several daemons). */
  lines: Schema.optional(Schema.Int),
  /** Only entries at or after this time (epoch ms). */
  since: Schema.optional(Schema.Number),
  /** Only entries at or before this time (epoch ms); not with `Tail`. */
  until: Schema.optional(Schema.Number),
  /** Lines containing any of these (case-insensitive unless `case_sensitive`), or matching `regex`. */
  grep: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  regex: Schema.optional(Schema.String),
  case_sensitive: Schema.optional(Schema.Boolean),
  /** Strip ANSI colour codes from the messages. */
  raw: Schema.optional(Schema.Boolean),
  /** Only entries of this level or a more severe one (structured daemons: log_format). */
  level: Schema.optional(LogLevelName),
  /** Only entries whose parsed fields read so: `KEY=VALUE` each, all of them. */
  fields: Schema.optional(Schema.Array(Schema.String)),
  /** Only entries for which this expression (the subset of jq in docs/logs.md) holds. */
  jq: Schema.optional(Schema.String),
}).annotations({ identifier: "LogFilters" })
export type LogFilters = typeof LogFilters.Type
