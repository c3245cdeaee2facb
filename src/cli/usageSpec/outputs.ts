import { Schema } from "effect"
import { StopResult, SupervisorInfo, WaitResult } from "../../api/Api.js"
import { ApiDaemonEntry } from "../../domain/ApiDaemonEntry.js"
import { ConfigProblem } from "../../domain/ConfigProblem.js"
import { LogEntry, LogStreamItem } from "../../domain/LogEntry.js"
import { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { READY_TIMEOUT_STATUS, StartOutcome } from "../../domain/StartOutcome.js"
import type { ExitCode, Framing } from "../../usage/model.js"
import { ResolveOutput } from "./resolveOutput.js"

/**
 * What the `@effect/cli` tree cannot say about a command: what it prints and what its exit
 * statuses mean. Hand-written, keyed by command path without the program name (`""` is the
 * program itself, `"supervisor status"` is `supervisor supervisor status`). The schemas are the
 * same effect/Schema values the code encodes its JSON with, so the spec cannot drift from the
 * output; `test/cli/usageSpec/cliSpec.test.ts` checks that every `--json` flag has an output here and
 * that every path here is a command.
 */

export interface OutputEntry {
  readonly name: string
  readonly framing: Framing
  readonly media_type?: string
  readonly help: string
  readonly default?: true
  /** The boolean flag that selects it (`--json`). */
  readonly select?: string
  /** Becomes the output's JSON Schema (`JSONSchema.make`). */
  readonly schema?: Schema.Schema.Any
}

export interface CommandExtras {
  readonly outputs?: ReadonlyArray<OutputEntry>
  /** Inherited outputs this command does not print (`hide=#true`). */
  readonly hide?: ReadonlyArray<string>
  /** Added to, or replacing by number, the program's exit codes. */
  readonly exit_codes?: ReadonlyArray<ExitCode>
  readonly long_help?: string
  /** Mirrors `ALIASES` in src/cli/main.ts (argv is rewritten before @effect/cli sees it). */
  readonly aliases?: ReadonlyArray<string>
  /** Long flag names whose value may be left out (`--bump` alone: see `withOptionalBumpValue`). */
  readonly optional_value?: ReadonlyArray<string>
}

const JSON_TYPE = "application/json"

/** `--json`: one JSON document, read to the end of the stream. */
const json = (help: string, schema: Schema.Schema.Any): OutputEntry => ({
  name: "json",
  framing: "json",
  media_type: JSON_TYPE,
  help,
  select: "--json",
  schema,
})

/** `supervisor start|restart|run`. */
const READY_TIMEOUT = { code: READY_TIMEOUT_STATUS, description: "a daemon did not become ready in time" }

const startOutcomes = json("one outcome per daemon started", Schema.Array(StartOutcome))

/** `enable`/`disable --json`: built in src/cli/daemons.ts, which has no schema of its own. */
const ToggleResult = Schema.Array(Schema.Struct({ id: Schema.String, enabled: Schema.Boolean }))

/** `clean --json`: the `clean` endpoint's success value (src/api/Api.ts), printed as is. */
const CleanResult = Schema.Struct({ removed: Schema.Array(Schema.String) })

/** `supervisor status --json`: `{ running: true, ...SupervisorInfo }`, or where it would listen. */
const SupervisorStatus = Schema.Union(
  Schema.Struct({ running: Schema.Literal(true), ...SupervisorInfo.fields }),
  Schema.Struct({ running: Schema.Literal(false), socket: Schema.String }),
)

/** `config validate --json` (src/cli/config.ts): the verdict, with the problems when invalid. */
const ValidateResult = Schema.Union(
  Schema.Struct({
    valid: Schema.Literal(true),
    files: Schema.Array(Schema.String),
    daemons: Schema.Int,
    warnings: Schema.Array(Schema.String),
  }),
  Schema.Struct({
    valid: Schema.Literal(false),
    problems: Schema.Array(ConfigProblem),
    warnings: Schema.Array(Schema.String),
  }),
)

export const ROOT_EXTRAS: CommandExtras = {
  outputs: [
    { name: "text", framing: "text", media_type: "text/plain", help: "human-readable text", default: true },
  ],
  exit_codes: [
    { code: 0, description: "success" },
    { code: 1, description: "failure (the message is on stderr)" },
    { code: 2, description: "usage error: unknown command, bad flag or argument" },
  ],
}

export const COMMAND_EXTRAS: Readonly<Record<string, CommandExtras>> = {
  start: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT], optional_value: ["bump"] },
  stop: { outputs: [json("one result per daemon", Schema.Array(StopResult))], aliases: ["kill"] },
  restart: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT] },
  enable: { outputs: [json("the daemons enabled", ToggleResult)] },
  disable: { outputs: [json("the daemons disabled", ToggleResult)] },
  status: { outputs: [json("the daemon", ApiDaemonEntry)] },
  list: { outputs: [json("every daemon, sorted by ID", Schema.Array(ApiDaemonEntry))], aliases: ["ls"] },
  logs: {
    outputs: [
      json("the log lines, oldest first (without --tail)", Schema.Array(LogEntry)),
      {
        name: "jsonl",
        framing: "jsonl",
        media_type: "application/x-ndjson",
        help: "with --tail --json: one log line (or a clear marker) per line, as they come",
        schema: LogStreamItem,
      },
    ],
  },
  run: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT] },
  wait: {
    outputs: [json("how the daemon ended", WaitResult)],
    long_help:
      "Waits until a daemon exits, then exits with the daemon's own exit status: its exit code, or 128+N when signal N killed it (0 when it ended cleanly).",
  },
  clean: { outputs: [json("the daemons forgotten", CleanResult)] },
  "supervisor status": {
    outputs: [json("whether the supervisor runs, and its details", SupervisorStatus)],
    exit_codes: [{ code: 1, description: "the supervisor is not running (or another failure)" }],
  },
  "config show": { outputs: [json("the merged configuration", ResolvedConfig)] },
  "config validate": {
    outputs: [json("the verdict, with every problem when invalid", ValidateResult)],
    exit_codes: [{ code: 1, description: "the configuration has problems (listed on stderr)" }],
  },
  schema: {
    hide: ["text"],
    outputs: [
      {
        name: "json",
        framing: "json",
        media_type: "application/schema+json",
        help: "the JSON Schema of supervisor.toml",
        default: true,
      },
    ],
  },
  usage: {
    hide: ["text"],
    outputs: [{ name: "kdl", framing: "text", help: "the usage spec (KDL) of this CLI", default: true }],
  },
  "spec check": {
    exit_codes: [{ code: 1, description: "the spec has problems (one per line on stderr)" }],
  },
  "spec resolve": { outputs: [json("the resolved outputs and exit codes of every command", ResolveOutput)] },
  "spec describe": {
    hide: ["text"],
    outputs: [
      { name: "json", framing: "json", media_type: JSON_TYPE, help: "the MCP description", default: true },
    ],
    exit_codes: [{ code: 1, description: "unknown command (the known ones are listed on stderr)" }],
  },
  "spec fmt": {
    hide: ["text"],
    outputs: [
      { name: "kdl", framing: "text", help: "the spec, as the KDL writer formats it", default: true },
    ],
  },
}
