import { Schema } from "effect"
import { DaemonStatus } from "../domain/DaemonStatus.js"

/** What the supervisor remembers of one daemon across its own restarts. */
export const DaemonRecord = Schema.Struct({
  id: Schema.String,
  /** The resolved definition it was last started with (config daemons) or given (ad-hoc `run`). */
  definition: Schema.Unknown,
  adhoc: Schema.Boolean,
  status: DaemonStatus,
  pid: Schema.NullOr(Schema.Int),
  /** Start time of `pid` (from /proc), so that a recycled PID is never adopted or signalled. */
  start_time: Schema.NullOr(Schema.String),
  /** Epoch milliseconds of the last start. */
  started_at: Schema.NullOr(Schema.Number),
  retry_count: Schema.Int,
  /** It had failed and was waiting for its next retry: the next supervisor resumes the retries. */
  retry_pending: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The ports of the latest run (after a bump); absent in state files of older versions. */
  ports: Schema.optionalWith(Schema.Array(Schema.Int), { default: () => [] }),
})
export type DaemonRecord = typeof DaemonRecord.Type

export const PersistentState = Schema.Struct({
  version: Schema.Literal(1),
  daemons: Schema.Record({ key: Schema.String, value: DaemonRecord }),
  disabled: Schema.Array(Schema.String),
  /** Registered project namespaces: name -> directory. */
  namespaces: Schema.Record({ key: Schema.String, value: Schema.String }),
  /**
   * Directories where a CLI ran a command, oldest first (at most `MAX_PROJECTS`): the daemons their
   * configuration declares can be started over the API before they ever ran.
   */
  projects: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /**
   * Per cron daemon, epoch milliseconds up to which its scheduled times were dealt with (fired or
   * skipped): a supervisor restart fires a time missed since then once, and never one before it.
   */
  cron: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Number }), {
    default: () => ({}),
  }),
  /**
   * `supervisor scale`'s counts, by replicated daemon (docs/replicas.md): kept while an instance
   * of it runs, so that a supervisor that restarts and adopts them keeps the count too.
   */
  scaled: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Int }), {
    default: () => ({}),
  }),
})
export type PersistentState = typeof PersistentState.Type

export const MAX_PROJECTS = 50

export const emptyState = (): PersistentState => ({
  version: 1,
  daemons: {},
  disabled: [],
  namespaces: {},
  projects: [],
  cron: {},
  scaled: {},
})
