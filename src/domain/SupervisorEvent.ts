import { Schema } from "effect"
import { ApiDaemonEntry } from "./ApiDaemonEntry.js"
import { StatusType } from "./DaemonStatus.js"

// The supervisor's live events (GET /api/events, `supervisor events`; docs/events.md). Every
// event carries `seq`, increasing by one per event within one supervisor run (it starts at 1
// again after a restart), and `at`, epoch milliseconds of when it was published.

const stamp = {
  /** Position in this supervisor run's stream: 1, 2, 3, ... */
  seq: Schema.Int,
  /** When it was published, epoch milliseconds. */
  at: Schema.Number,
}

/**
 * Why a daemon's state changed: who asked (`cli`, `api`, `watch`, `cron`, `limit`, `boot`,
 * `shell`, `proxy`, `shutdown`) or what its run observed (`spawned`, `ready`, `not_ready`,
 * `exited`, `retry`, `gave_up`, `spawn_failed`, `adopted`).
 */
export const ChangeReason = Schema.String.annotations({ identifier: "ChangeReason" })

/** A daemon's status changed (`waiting` → `running`, `running` → `errored`, ...). */
export const DaemonStateChanged = Schema.TaggedStruct("DaemonStateChanged", {
  ...stamp,
  id: Schema.String,
  from: StatusType,
  to: StatusType,
  reason: ChangeReason,
  /** The process now (null once it is gone). */
  pid: Schema.NullOr(Schema.Int),
  /** How the run ended, once it did. */
  exit_code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  /** Why it is errored or failed, in words. */
  message: Schema.NullOr(Schema.String),
}).annotations({ identifier: "DaemonStateChanged" })

/** A run's readiness check passed: `check` is its kind (`output`, `http`, `port`, `cmd`, `delay`). */
export const ReadinessPassed = Schema.TaggedStruct("ReadinessPassed", {
  ...stamp,
  id: Schema.String,
  pid: Schema.Int,
  check: Schema.String,
}).annotations({ identifier: "ReadinessPassed" })

/** A run's readiness checks failed or timed out: the daemon is stopped, with its last output lines. */
export const ReadinessFailed = Schema.TaggedStruct("ReadinessFailed", {
  ...stamp,
  id: Schema.String,
  message: Schema.String,
  /** The daemon's last output lines of that run (up to 20). */
  output: Schema.Array(Schema.String),
}).annotations({ identifier: "ReadinessFailed" })

/** A failed run is retried after a backoff: retry `attempt` of `limit` (null: unlimited), due at `due_at`. */
export const RetryScheduled = Schema.TaggedStruct("RetryScheduled", {
  ...stamp,
  id: Schema.String,
  attempt: Schema.Int,
  limit: Schema.NullOr(Schema.Int),
  /** Epoch milliseconds the retry is due. */
  due_at: Schema.Number,
  /** The run's failure, in words. */
  message: Schema.String,
}).annotations({ identifier: "RetryScheduled" })

/**
 * A daemon failed for good, as `on_fail` fires: its run failed with no retry left, its readiness
 * checks failed, or it could not be spawned. Nothing restarts it until it is started again.
 */
export const DaemonFailed = Schema.TaggedStruct("DaemonFailed", {
  ...stamp,
  id: Schema.String,
  /** How its last run ended (null when not known, or when nothing was spawned). */
  exit_code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  /** Why, in words. */
  message: Schema.String,
}).annotations({ identifier: "DaemonFailed" })

/** Who acted on a daemon by itself. */
export const AutomationSource = Schema.Literal(
  "watch",
  "cron",
  "limit",
  "shell",
  "proxy",
  "boot",
  "health",
  "dependency",
)
export type AutomationSource = typeof AutomationSource.Type

/**
 * The supervisor's automation acted on a daemon: `action` is what it did (`restart`, `start`,
 * `stop`, `kill`), `detail` why (`src/app.js changed`, `memory 161 MB over memory_limit 80 MB`).
 */
export const AutomationAction = Schema.TaggedStruct("AutomationAction", {
  ...stamp,
  id: Schema.String,
  source: AutomationSource,
  action: Schema.String,
  detail: Schema.String,
}).annotations({ identifier: "AutomationAction" })

/** A project's configuration file changed and was loaded again. */
export const ConfigReloaded = Schema.TaggedStruct("ConfigReloaded", {
  ...stamp,
  /** The project directory. */
  dir: Schema.String,
}).annotations({ identifier: "ConfigReloaded" })

/** A project's configuration is invalid: the last good one stays in use. */
export const ConfigInvalid = Schema.TaggedStruct("ConfigInvalid", {
  ...stamp,
  file: Schema.String,
  line: Schema.NullOr(Schema.Int),
  key: Schema.NullOr(Schema.String),
  message: Schema.String,
}).annotations({ identifier: "ConfigInvalid" })

/** Which storage of the supervisor: its state file, a daemon's log files, its own log. */
export const StorageArea = Schema.Literal("state", "logs", "supervisor_log")

/**
 * A file of the supervisor's storage started failing: `operation` (`write`; `read` for a state
 * file found corrupt at start) on `file` fails with `code` (`ENOSPC`, `EROFS`, `EACCES`, ...,
 * `corrupt`); `message` says the fix. Published once per file until it recovers (or its code changes).
 */
export const StorageProblem = Schema.TaggedStruct("StorageProblem", {
  ...stamp,
  area: StorageArea,
  file: Schema.String,
  operation: Schema.Literal("write", "read"),
  code: Schema.String,
  message: Schema.String,
}).annotations({ identifier: "StorageProblem" })

/** A failing file of the supervisor's storage is writable again: `failed_writes` failed from `since`. */
export const StorageRecovered = Schema.TaggedStruct("StorageRecovered", {
  ...stamp,
  area: StorageArea,
  file: Schema.String,
  /** The error it failed with. */
  code: Schema.String,
  failed_writes: Schema.Int,
  /** Epoch milliseconds of the first failure. */
  since: Schema.Number,
  message: Schema.String,
}).annotations({ identifier: "StorageRecovered" })

/** One event of the stream. */
export const SupervisorEvent = Schema.Union(
  DaemonStateChanged,
  ReadinessPassed,
  ReadinessFailed,
  RetryScheduled,
  DaemonFailed,
  AutomationAction,
  ConfigReloaded,
  ConfigInvalid,
  StorageProblem,
  StorageRecovered,
).annotations({ identifier: "SupervisorEvent" })
export type SupervisorEvent = typeof SupervisorEvent.Type

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

/** An event as its publisher gives it: the event log adds `seq` and `at`. */
export type EventBody = DistributiveOmit<SupervisorEvent, "seq" | "at">

/**
 * Events `first` to `last` (both included) are lost to this reader: older than the retained
 * ones, or they came faster than it read. Resume with `since = first - 1` to get those still
 * retained.
 */
export const EventsDropped = Schema.TaggedStruct("EventsDropped", {
  first: Schema.Int,
  last: Schema.Int,
  count: Schema.Int,
}).annotations({ identifier: "EventsDropped" })
export type EventsDropped = typeof EventsDropped.Type

/** One item of an event stream: an event, or the marker of a gap before the next one. */
export const EventStreamItem = Schema.Union(SupervisorEvent, EventsDropped).annotations({
  identifier: "EventStreamItem",
})
export type EventStreamItem = typeof EventStreamItem.Type

/** The daemon an event is about; undefined for the supervisor's own (configuration, storage). */
export const eventDaemon = (e: EventStreamItem): string | undefined => ("id" in e ? e.id : undefined)

/** One running daemon at a usage sample: what the web page's and the dashboard's usage cells show. */
export const DaemonUsageNow = Schema.Struct({
  id: Schema.String,
  pid: Schema.Int,
  /** CPU of its process tree, in percent of one core (as `cpu_percent` of `GET /api/daemons`). */
  cpu_percent: Schema.Number,
  memory_bytes: Schema.Int,
  active_port: Schema.NullOr(Schema.Int),
  uptime_secs: Schema.Int,
}).annotations({ identifier: "DaemonUsageNow" })
export type DaemonUsageNow = typeof DaemonUsageNow.Type

/**
 * Every running daemon's usage, sampled every `interval_ms` for the streams that asked for it
 * (`GET /api/events?usage=true`). A sample, not an event: no `seq`, not kept for `since`.
 */
export const UsageSampled = Schema.TaggedStruct("UsageSampled", {
  /** When it was taken, epoch milliseconds. */
  at: Schema.Number,
  interval_ms: Schema.Int,
  daemons: Schema.Array(DaemonUsageNow),
}).annotations({ identifier: "UsageSampled" })
export type UsageSampled = typeof UsageSampled.Type

/**
 * A daemon's listing entry (`GET /api/daemons` without usage figures) right after an event about
 * it, for the streams that asked for entries (`GET /api/events?entries=true`): a live view
 * patches its row without a request. `entry` is null when the daemon is no longer known.
 */
export const DaemonEntry = Schema.TaggedStruct("DaemonEntry", {
  id: Schema.String,
  entry: Schema.NullOr(ApiDaemonEntry),
}).annotations({ identifier: "DaemonEntry" })
export type DaemonEntry = typeof DaemonEntry.Type

/** One item of a stream that asked for usage samples or entries too: an event stream item, a sample or an entry. */
export const LiveStreamItem = Schema.Union(EventStreamItem, UsageSampled, DaemonEntry).annotations({
  identifier: "LiveStreamItem",
})
export type LiveStreamItem = typeof LiveStreamItem.Type
