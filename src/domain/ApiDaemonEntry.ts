import { Schema } from "effect"
import { DaemonIdObject } from "./DaemonId.js"
import { DaemonStatus } from "./DaemonStatus.js"
import { InstanceEntry } from "./Instances.js"
import { WorktreeEntry } from "./Worktree.js"

/** The retry an errored daemon waits for (`list` shows `errored, retry 2/3 in 4s`). */
export const NextRetry = Schema.Struct({
  retry: Schema.Int.annotations({ description: "Which retry it is: 1 for the first" }),
  of: Schema.NullOr(Schema.Int).annotations({
    description: "How many retries the daemon has (its `retry` key); null when unlimited (`retry = true`)",
  }),
  due_in_ms: Schema.Int.annotations({
    description: "Milliseconds until the retry starts, when the entry was made (0 when it is due)",
  }),
}).annotations({ identifier: "NextRetry" })
export type NextRetry = typeof NextRetry.Type

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
  next_retry: Schema.NullOr(NextRetry).annotations({
    description: "The retry an errored daemon waits for; null when none is pending",
  }),
  source: Schema.NullOr(Schema.String),
  next_run: Schema.NullOr(Schema.String).annotations({
    description: "When its cron schedule fires next (ISO 8601); null without a schedule",
  }),
  watch_problem: Schema.NullOr(Schema.String).annotations({
    description:
      "Why its `watch` files cannot be watched (the watcher could not be set up); null when they are, or it has no `watch` list",
  }),
  pty: Schema.Boolean.annotations({
    description:
      "It runs under a pseudo-terminal (`pty = true`): a client can attach to it while it runs (docs/attach.md)",
  }),
  stdin: Schema.Literal("null", "pipe").annotations({
    description:
      'What it reads on stdin (its `stdin` key): "pipe" takes `supervisor send` and `POST /api/daemons/{id}/input` without a terminal, "null" reads nothing (a `pty = true` daemon reads its terminal either way)',
  }),
  instance: Schema.optional(InstanceEntry).annotations({
    description:
      "For an instance of a daemon with `instances`: that daemon's qualified ID, the instance's index and the count `scale` set (docs/replicas.md); absent for any other daemon",
  }),
  worktree: Schema.optional(WorktreeEntry).annotations({
    description:
      "The worktree its project directory is in (a git worktree, a jj workspace or a named copy: docs/worktrees.md); absent in a main checkout",
  }),
  log_problem: Schema.optional(Schema.String).annotations({
    description:
      "Why writes of its log files fail now (a full or read-only disk) and the fix; absent when they work",
  }),
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
