import { Schema } from "effect"

/**
 * The status of a daemon (`status.type` in the API). See docs/states.md for the
 * transitions. `disabled` and `available` are only shown by listings: a daemon
 * that is configured but never started is `available`.
 */
export const STATUS_TYPES = [
  "waiting",
  "running",
  "unhealthy",
  "stopping",
  "stopped",
  "errored",
  "failed",
  "disabled",
  "available",
] as const
export const StatusType = Schema.Literal(...STATUS_TYPES)
export type StatusType = typeof StatusType.Type

/** The statuses of a daemon whose process may be alive: it is starting, running (healthy or not) or stopping. */
export const ACTIVE_STATUS_TYPES = [
  "waiting",
  "running",
  "unhealthy",
  "stopping",
] as const satisfies ReadonlyArray<StatusType>

export const isActiveStatus = (type: StatusType): boolean =>
  (ACTIVE_STATUS_TYPES as ReadonlyArray<StatusType>).includes(type)

/** Whether a daemon (by its status) is active: its process may be alive. */
export const isActive = (r: { readonly status: { readonly type: StatusType } }): boolean =>
  isActiveStatus(r.status.type)

export const DaemonStatus = Schema.Struct({
  type: StatusType,
  /** Exit code of the last run, when it exited on its own. */
  exit_code: Schema.optional(Schema.NullOr(Schema.Int)),
  /** Signal that ended the last run, e.g. SIGKILL. */
  signal: Schema.optional(Schema.NullOr(Schema.String)),
  /** Why the daemon is errored, failed or unhealthy, in words. */
  message: Schema.optional(Schema.String),
}).annotations({ identifier: "DaemonStatus" })
export type DaemonStatus = typeof DaemonStatus.Type
