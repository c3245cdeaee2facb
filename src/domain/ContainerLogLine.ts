import { Schema } from "effect"
import { LogLevelName } from "./LogFormat.js"

/**
 * One line of a daemon's output as a supervisor in container mode prints it on its stdout with
 * `--log-format json` (docs/container.md): one JSON object per line.
 */
export const ContainerLogLine = Schema.Struct({
  daemon: Schema.String.annotations({ description: "Qualified daemon ID (namespace/name)" }),
  name: Schema.String.annotations({
    description:
      "The prefix of the plain format: the daemon's name, or its qualified ID when two namespaces share it",
  }),
  time: Schema.String.annotations({
    description: "When the supervisor read the line, RFC 3339 in UTC (to the second)",
  }),
  message: Schema.String.annotations({ description: "The line, as the daemon wrote it" }),
  level: Schema.optional(
    LogLevelName.annotations({ description: "The line's severity, when the daemon's log_format parsed one" }),
  ),
  fields: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "The line's keys and values, when the daemon's log_format parsed it",
    }),
  ),
}).annotations({ identifier: "ContainerLogLine" })
export type ContainerLogLine = typeof ContainerLogLine.Type

/** How a supervisor in container mode prints its daemons' output: `name | line`, or JSON lines. */
export const ContainerLogFormat = Schema.Literal("text", "json").annotations({
  identifier: "ContainerLogFormat",
})
export type ContainerLogFormat = typeof ContainerLogFormat.Type
