import { Schema } from "effect"
import { ApiDaemonEntry } from "./ApiDaemonEntry.js"
import { ConfigProblem } from "./ConfigProblem.js"
import { StatusType } from "./DaemonStatus.js"
import { LogEntry } from "./LogEntry.js"
import { ResolvedConfig } from "./ResolvedConfig.js"
import { StartOutcome } from "./StartOutcome.js"

/**
 * The JSON documents the CLI prints (`--json`), each a Schema: the commands print through it
 * (src/cli/output.ts `printJson`) and the CLI's usage spec declares it (src/cli/usageSpec/
 * outputs.ts), so the two cannot disagree. Those that are also answers of the supervisor's API
 * (stop, wait, clean, its info) are the same schemas there.
 */

/** `start`, `restart`, `run`: one outcome per daemon, in start order. */
export const StartOutcomes = Schema.Array(StartOutcome)

/** How `stop` ended for one daemon. */
export const StopResult = Schema.Struct({
  id: Schema.String,
  was_running: Schema.Boolean,
  /** It outlived its stop signal's timeout and was killed with SIGKILL. */
  killed: Schema.Boolean,
}).annotations({ identifier: "StopResult" })
export type StopResult = typeof StopResult.Type
/** `stop`: one result per daemon, in the order they were stopped. */
export const StopResults = Schema.Array(StopResult)

/**
 * Where a daemon stands at the end of `up`: `ready`, `running` (it ran before `up`), `completed`
 * (a one-shot task that exited 0), `failed`, `not_ready` (still starting when the wait ended),
 * `disabled`, `stopped` (stopped while starting).
 */
export const UpStatus = Schema.Literal(
  "ready",
  "running",
  "completed",
  "failed",
  "not_ready",
  "disabled",
  "stopped",
)
export type UpStatus = typeof UpStatus.Type

/** One row of the summary of `up`. */
export const UpDaemon = Schema.Struct({
  id: Schema.String,
  status: UpStatus,
  /** Milliseconds from the start of `up` until it was ready or completed; null otherwise. */
  ready_ms: Schema.NullOr(Schema.NonNegativeInt),
  pid: Schema.NullOr(Schema.Int),
  /** The ports it was given (after any bump). */
  ports: Schema.Array(Schema.Int),
  /** Its address through the reverse proxy, when a slug names it and the proxy is enabled. */
  proxy_url: Schema.optional(Schema.String),
  /** Why it is not ready: the failure's message, or that the wait ended first. */
  message: Schema.optional(Schema.String),
  /** Its last output lines, for a daemon that is neither ready nor running nor completed. */
  output: Schema.Array(Schema.String),
}).annotations({ identifier: "UpDaemon" })
export type UpDaemon = typeof UpDaemon.Type

/**
 * `up --json`: whether every daemon is ready (or completed), how long `up` waited, whether
 * `--timeout` ended the wait, each daemon's row in start order, and what `--exit-on-failure`
 * stopped (dependents first).
 */
export const UpSummary = Schema.Struct({
  ok: Schema.Boolean,
  elapsed_ms: Schema.NonNegativeInt,
  timed_out: Schema.Boolean,
  daemons: Schema.Array(UpDaemon),
  stopped: Schema.Array(StopResult),
}).annotations({ identifier: "UpSummary" })
export type UpSummary = typeof UpSummary.Type

/** `scale`: the daemon, its count before and now, the instances started and those stopped. */
export const ScaleResult = Schema.Struct({
  daemon: Schema.String.annotations({ description: "The qualified ID of the daemon scaled" }),
  previous: Schema.Int.annotations({ description: "How many instances ran before" }),
  count: Schema.Int.annotations({ description: "How many instances run now" }),
  started: StartOutcomes.annotations({ description: "The start of each instance up to count" }),
  stopped: StopResults.annotations({ description: "The instances above count, stopped highest first" }),
}).annotations({ identifier: "ScaleResult" })
export type ScaleResult = typeof ScaleResult.Type

/** `send` (the `Input` command): the daemon typed into, and how many bytes it was sent. */
export const InputResult = Schema.Struct({
  id: Schema.String.annotations({ description: "The qualified ID of the daemon" }),
  bytes: Schema.Int.annotations({ description: "How many bytes were written to its input" }),
}).annotations({ identifier: "InputResult" })
export type InputResult = typeof InputResult.Type

/** `enable` and `disable`: the daemons and what they are now. */
export const ToggleResults = Schema.Array(Schema.Struct({ id: Schema.String, enabled: Schema.Boolean }))

/** `list`: every daemon, sorted by ID. */
export const DaemonList = Schema.Array(ApiDaemonEntry)

/** `status ID`: the daemon's entry, and its status flat (`status_text: "running"`) for scripts. */
export const DaemonStatusOutput = Schema.extend(
  ApiDaemonEntry,
  Schema.Struct({ status_text: Schema.String }),
).annotations({
  identifier: "DaemonStatusOutput",
})

/** `logs` without `--tail`: the log lines, oldest first. */
export const LogLines = Schema.Array(LogEntry)

/** `logs --clear`: the daemons whose logs were deleted. */
export const LogsCleared = Schema.Struct({ cleared: Schema.Array(Schema.String) }).annotations({
  identifier: "LogsCleared",
})

/** `wait`: how the daemon ended. */
export const WaitResult = Schema.Struct({
  id: Schema.String,
  status: StatusType,
  exit_code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
  /** It ended with an exit code of its `success_exit_codes`: `wait` exits 0. */
  success: Schema.optionalWith(Schema.Boolean, { default: () => false }),
}).annotations({ identifier: "WaitResult" })

/** `clean`: the daemons forgotten. */
export const CleanResult = Schema.Struct({ removed: Schema.Array(Schema.String) }).annotations({
  identifier: "CleanResult",
})

/** `supervisor worktree prune --json`: the gone projects forgotten, and their daemons stopped and forgotten. */
export const WorktreePruneResult = Schema.Struct({
  namespaces: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      dir: Schema.String,
      worktree: Schema.NullOr(Schema.String),
    }),
  ).annotations({ description: "The namespaces whose project directory is gone, forgotten" }),
  stopped: Schema.Array(Schema.String).annotations({ description: "The daemons that were stopped" }),
  removed: Schema.Array(Schema.String).annotations({ description: "The daemons forgotten (logs deleted)" }),
}).annotations({ identifier: "WorktreePruneResult" })

/**
 * A problem with the supervisor's storage: writes of a file that fail (counted until one succeeds
 * again), or a state file that was found corrupt at start and kept aside.
 */
export const StorageProblem = Schema.Struct({
  area: Schema.Literal("state", "logs", "supervisor_log"),
  file: Schema.String,
  /** The error code (`ENOSPC`, `EROFS`, `EACCES`, ...), or `corrupt`. */
  code: Schema.String,
  /** What is wrong and the fix, in one line. */
  message: Schema.String,
  /** Epoch milliseconds of the first failure. */
  since: Schema.Number,
  failed_writes: Schema.Int,
}).annotations({ identifier: "StorageProblem" })

/** The running supervisor (`GET /api/cli/supervisor`). */
export const SupervisorInfo = Schema.Struct({
  pid: Schema.Int,
  version: Schema.String,
  started_at: Schema.Number,
  uptime_secs: Schema.Int,
  state_dir: Schema.String,
  socket: Schema.String,
  web_url: Schema.NullOr(Schema.String),
  api_url: Schema.NullOr(Schema.String),
  /** The reverse proxy's URL; absent when it is off. */
  proxy_url: Schema.optional(Schema.String),
  /** The TLD of the slugs the listening proxy serves (`<slug>.<tld>`); absent when it does not listen. */
  proxy_tld: Schema.optional(Schema.String),
  /** Why the enabled reverse proxy does not listen (a port in use); absent when it does or is off. */
  proxy_problem: Schema.optional(Schema.String),
  daemons: Schema.Int,
  /**
   * The known projects whose configuration files are invalid now (their last good configuration
   * stays in force): the directory, its namespace and the problems (file:line: key: message, fix).
   */
  config_problems: Schema.Array(
    Schema.Struct({ dir: Schema.String, namespace: Schema.NullOr(Schema.String), problem: Schema.String }),
  ),
  /** What is wrong with the state file, the log directory or the supervisor log now; empty when nothing. */
  storage_problems: Schema.Array(StorageProblem),
}).annotations({ identifier: "SupervisorInfo" })
export type SupervisorInfo = typeof SupervisorInfo.Type

/** `supervisor status`: `{ running: true, ...SupervisorInfo }`, or where it would listen. */
export const SupervisorStatus = Schema.Union(
  Schema.Struct({ running: Schema.Literal(true), ...SupervisorInfo.fields }),
  Schema.Struct({ running: Schema.Literal(false), socket: Schema.String }),
)

/** A configuration that cannot be loaded: every problem (exit status 1). */
export const ConfigProblems = Schema.Struct({
  valid: Schema.Literal(false),
  problems: Schema.Array(ConfigProblem),
  warnings: Schema.Array(Schema.String),
}).annotations({ identifier: "ConfigProblems" })

/** `config validate`: the verdict, with the problems when invalid. */
export const ConfigVerdict = Schema.Union(
  Schema.Struct({
    valid: Schema.Literal(true),
    files: Schema.Array(Schema.String),
    daemons: Schema.Int,
    warnings: Schema.Array(Schema.String),
  }),
  ConfigProblems,
)

/** `config show`: the merged configuration, or its problems when it cannot be loaded. */
export const ConfigShown = Schema.Union(ResolvedConfig, ConfigProblems)

/** `schema`: a JSON Schema document (draft-07). */
export const JsonSchemaDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "JsonSchemaDocument",
  jsonSchema: { $ref: "http://json-schema.org/draft-07/schema#" },
})

/** `supervisor daemons --json`: the configured daemons seen from the current directory. */
export const ConfiguredDaemons = Schema.Array(
  Schema.Struct({
    /** Qualified: namespace/name. */
    id: Schema.String,
    run: Schema.String,
    /** Every file that sets a key of it, in load order. */
    files: Schema.Array(Schema.String),
  }),
).annotations({ identifier: "ConfiguredDaemons" })
