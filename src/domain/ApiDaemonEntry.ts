import { Schema } from "effect"
import { DaemonIdObject } from "./DaemonId.js"
import { DaemonStatus } from "./DaemonStatus.js"

/**
 * A daemon as the API reports it (the spec's `ApiDaemonEntry`). Every field is
 * always present; a value that does not apply (no process, no slug) is null.
 * Fields after `resolved_port` are additions of this implementation.
 */
export const ApiDaemonEntry = Schema.Struct({
  id: DaemonIdObject,
  title: Schema.String,
  pid: Schema.NullOr(Schema.Int),
  status: DaemonStatus,
  dir: Schema.String,
  cpu_percent: Schema.Number,
  memory_bytes: Schema.Int,
  uptime_secs: Schema.Int,
  proxy_url: Schema.NullOr(Schema.String),
  slug: Schema.NullOr(Schema.String),
  active_port: Schema.NullOr(Schema.Int),
  resolved_port: Schema.Array(Schema.Int),
  enabled: Schema.Boolean,
  adhoc: Schema.Boolean,
  run: Schema.String,
  retry_count: Schema.Int,
  source: Schema.NullOr(Schema.String),
}).annotations({ identifier: "ApiDaemonEntry" })
export type ApiDaemonEntry = typeof ApiDaemonEntry.Type

export const ControlResult = Schema.Struct({
  ok: Schema.Boolean,
  error: Schema.optional(Schema.String),
}).annotations({ identifier: "ControlResult" })
export type ControlResult = typeof ControlResult.Type

export const SystemStats = Schema.Struct({
  process_count: Schema.Int,
  cpu_count: Schema.Int,
  total_memory: Schema.Int,
}).annotations({ identifier: "SystemStats" })
