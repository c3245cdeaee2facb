import { Schema } from "effect"

/** The CLI's exit status for a start whose every readiness check timed out (as timeout(1)). */
export const READY_TIMEOUT_STATUS = 124

/** How a start request ended, per daemon. */
export const Ready = Schema.TaggedStruct("Ready", {
  id: Schema.String,
  pid: Schema.Int,
  /** The ports the daemon was given (`port`), after any bump. */
  ports: Schema.optional(Schema.Array(Schema.Int)),
  /** The configured ports, present only when they were taken and the daemon got shifted ones. */
  expected_ports: Schema.optional(Schema.Array(Schema.Int)),
  /** Its address through the reverse proxy: present when a slug names it and the proxy is enabled. */
  proxy_url: Schema.optional(Schema.String),
})
export const AlreadyRunning = Schema.TaggedStruct("AlreadyRunning", {
  id: Schema.String,
  pid: Schema.NullOr(Schema.Int),
})
/** Exited with status 0 before it was ready: a one-shot task that is done. */
export const Completed = Schema.TaggedStruct("Completed", { id: Schema.String })
export const StartFailed = Schema.TaggedStruct("StartFailed", {
  id: Schema.String,
  message: Schema.String,
  exit_code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  /** The daemon's last output lines, to show why. */
  output: Schema.Array(Schema.String),
  /** The CLI's exit status for this failure (1, or READY_TIMEOUT_STATUS for a readiness timeout). */
  cli_status: Schema.Int,
})
export const Disabled = Schema.TaggedStruct("Disabled", { id: Schema.String })
/** Stopped (or the supervisor shut down) while still starting. */
export const Interrupted = Schema.TaggedStruct("Interrupted", { id: Schema.String })

export const StartOutcome = Schema.Union(
  Ready,
  AlreadyRunning,
  Completed,
  StartFailed,
  Disabled,
  Interrupted,
).annotations({
  identifier: "StartOutcome",
})
export type StartOutcome = typeof StartOutcome.Type
