import type { Schema } from "effect"
import { NDJSON } from "../../api/ndjson.js"
import { BootChange, BootState } from "../../domain/BootOutput.js"
import {
  CleanResult,
  ConfigShown,
  ConfiguredDaemons,
  ConfigVerdict,
  DaemonList,
  DaemonStatusOutput,
  InputResult,
  JsonSchemaDocument,
  LogLines,
  LogsCleared,
  ScaleResult,
  StartOutcomes,
  StopResults,
  SupervisorStatus,
  ToggleResults,
  UpSummary,
  WaitResult,
  WorktreePruneResult,
} from "../../domain/CliOutput.js"
import { DependencyGraph } from "../../domain/DependencyGraph.js"
import { Explanation } from "../../domain/Explain.js"
import { ExportOutput } from "../../domain/ExportOutput.js"
import { LogStreamItem } from "../../domain/LogEntry.js"
import { PresenceList } from "../../domain/Presence.js"
import { ProxyStatus } from "../../domain/ProxyStatus.js"
import { SettingEntry, SettingList } from "../../domain/SettingsOutput.js"
import { READY_TIMEOUT_STATUS } from "../../domain/StartOutcome.js"
import { EventStreamItem } from "../../domain/SupervisorEvent.js"
import { ImportOutput } from "../../import/model.js"
import { ExitCode as Status } from "../../terminal/style.js"
import { CommandDescription, CommandList } from "../../usage/consume/mcpResults.js"
import type { Complete, ExitCode, Flag, Framing } from "../../usage/model.js"
import { ALIASES, SUBCOMMAND_ALIASES } from "../aliases.js"
import { COMPLETE_COMMAND } from "../complete.js"
import { OPTIONAL_VALUE } from "../portFlags.js"
import { CD_COMMAND } from "../shell.js"
import { REMOTE_GLOBAL_FLAGS } from "./globalFlags.js"
import { COMMAND_HEADINGS, COMPLETERS, RUNS_ALONE } from "./headings.js"
import { ResolveOutput } from "./resolveOutput.js"

/**
 * What the `@effect/cli` tree cannot say about a command: what it prints and what its exit
 * statuses mean. Hand-written, keyed by command path without the program name (`""` is the
 * program itself, `"supervisor status"` is `supervisor supervisor status`). The schemas are the
 * ones the commands print their JSON through (src/domain/CliOutput.ts, `printJson`), so the spec
 * cannot drift from the output; `test/cli/usageSpec/cliSpec.test.ts` checks that every `--json`
 * flag has an output here and that every path here is a command, and test/e2e/jsonOutputs.test.ts
 * decodes what every `--json` prints with the schema declared here.
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

/** What the spec generator (cliSpec.ts) adds to the tree: the root's extras and each command's. */
export interface Extras {
  readonly root: CommandExtras
  /** By command path without the program name: `"config show"`. */
  readonly commands: Readonly<Record<string, CommandExtras>>
  /** The aliases of commands, by path (argv is rewritten before @effect/cli sees them). */
  readonly aliases?: Readonly<Record<string, ReadonlyArray<string>>>
  /** Long flag names whose value may be left out, by command path (`--bump` alone). */
  readonly optionalValues?: Readonly<Record<string, ReadonlyArray<string>>>
  /** The heading each command is listed under in its parent's help, by path (`"start"`: Daemons). */
  readonly headings?: Readonly<Record<string, string>>
  /**
   * The commands made of subcommands that also run alone, by path (`"daemons"`); when given, every
   * other command made of subcommands (the program aside) needs one (`subcommand_required`).
   */
  readonly runsAlone?: ReadonlyArray<string>
  /** Commands accepted but never listed or offered, by path (`"complete"`). */
  readonly hidden?: ReadonlyArray<string>
  /** Global flags of the program that argv handling takes before @effect/cli (`--url`). */
  readonly globals?: ReadonlyArray<Flag>
  /** The spec's top-level completers (`complete "id" run="..."`): every command has them. */
  readonly complete?: ReadonlyArray<Complete>
}

export interface CommandExtras {
  readonly outputs?: ReadonlyArray<OutputEntry>
  /** Inherited outputs this command does not print (`hide=#true`). */
  readonly hide?: ReadonlyArray<string>
  /** Added to, or replacing by number, the program's exit codes. */
  readonly exit_codes?: ReadonlyArray<ExitCode>
  readonly long_help?: string
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

const startOutcomes = json("one outcome per daemon started", StartOutcomes)

export const ROOT_EXTRAS: CommandExtras = {
  outputs: [
    { name: "text", framing: "text", media_type: "text/plain", help: "human-readable text", default: true },
  ],
  exit_codes: [
    { code: Status.ok, description: "success" },
    { code: Status.failure, description: "failure (the message is on stderr)" },
    { code: Status.usage, description: "usage error: unknown command, bad flag or argument" },
  ],
}

export const COMMAND_EXTRAS: Readonly<Record<string, CommandExtras>> = {
  start: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT] },
  stop: { outputs: [json("one result per daemon, in the order they were stopped", StopResults)] },
  restart: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT] },
  up: {
    outputs: [
      json(
        "the summary: whether all are up, the time waited, each daemon's status, time to ready, ports and last output lines, and what --exit-on-failure stopped",
        UpSummary,
      ),
    ],
    exit_codes: [
      {
        code: Status.failure,
        description:
          "a daemon failed, is disabled, was stopped while starting or is still starting from an earlier start; or another failure (the message is on stderr)",
      },
      {
        code: READY_TIMEOUT_STATUS,
        description: "a daemon did not become ready in time (its readiness timeout, or --timeout)",
      },
    ],
    long_help:
      "Starts the daemons as `start` does (the IDs given, `--all`, or without either the daemons of the project's files), dependencies first, and waits until each is ready or has completed; `--timeout` bounds the whole wait. Then prints a summary: each daemon's status, time to ready, ports, and for one that is not up why and its last output lines. Exits 0 only when every daemon is up. `--exit-on-failure` stops what `up` started as soon as a daemon fails. See docs/ci.md.",
  },
  down: {
    outputs: [json("one result per daemon, in the order they were stopped", StopResults)],
    long_help:
      "Stops the daemons of the project's files that run (or the IDs given), dependents before their dependencies. See docs/ci.md.",
  },
  enable: { outputs: [json("the daemons enabled", ToggleResults)] },
  disable: { outputs: [json("the daemons disabled", ToggleResults)] },
  scale: {
    outputs: [
      json("the daemon scaled: its count before and now, the instances started and stopped", ScaleResult),
    ],
    exit_codes: [READY_TIMEOUT],
    long_help:
      "Sets how many instances of a daemon with `instances` run (docs/replicas.md): starts the missing ones and waits until they are ready, stops those above the count (the highest first) and forgets them. The configuration file is not changed: the count lasts until the daemon is stopped, and the next start runs the configured count.",
  },
  send: {
    outputs: [json("the daemon typed into and how many bytes it was sent", InputResult)],
    long_help:
      'Types into a running daemon (docs/attach.md): the TEXT words joined by spaces, then the --keys (tmux\'s names: Enter, Tab, Escape, Up, C-c, M-x...), then Enter with --enter. A pty = true daemon reads them from its terminal (Enter is a carriage return, as a keyboard sends), a stdin = "pipe" daemon from its stdin (Enter is a newline). A daemon that reads nothing for 2 s is an error.',
  },
  why: {
    outputs: [json("the daemon's status, whether it runs and is ready, and each reason", Explanation)],
    long_help:
      "Explains in plain words why a daemon is not running or not ready: a dependency it waits for (and, below it, why that one waits), the readiness check it waits for with its last output, how its last run ended and when it is retried, a limit that killed it, a disabled flag, a port another process holds (with that process). Exits 0 whatever it finds (docs/why.md).",
  },
  graph: {
    outputs: [
      json(
        "with --format json: the daemons drawn and their dependencies, each with its condition",
        DependencyGraph,
      ),
    ],
    long_help:
      "Draws the dependency graph of the daemons configured here (or of the IDs given and what they depend on): each edge with the condition its dependent waits for (ready, completed, completed_once, started), each daemon with its status now. --format text is a tree from the daemons nothing depends on; mermaid and dot (Graphviz) paste into documents and renderers (docs/graph.md).",
  },
  status: { outputs: [json("the daemon, with its status flat in status_text", DaemonStatusOutput)] },
  list: { outputs: [json("every daemon, sorted by ID", DaemonList)] },
  logs: {
    outputs: [
      json("the log lines, oldest first (without --tail or --clear)", LogLines),
      {
        name: "jsonl",
        framing: "jsonl",
        media_type: NDJSON,
        help: "with --tail --json: one log line (or a clear marker) per line, as they come",
        schema: LogStreamItem,
      },
      {
        name: "cleared",
        framing: "json",
        media_type: JSON_TYPE,
        help: "with --clear --json: the daemons whose logs were deleted",
        schema: LogsCleared,
      },
    ],
  },
  events: {
    outputs: [
      {
        name: "jsonl",
        framing: "jsonl",
        media_type: NDJSON,
        help: "one event (or a marker of events dropped) per line, as they come",
        select: "--json",
        schema: EventStreamItem,
      },
    ],
  },
  run: { outputs: [startOutcomes], exit_codes: [READY_TIMEOUT] },
  wait: {
    outputs: [json("how the daemon ended", WaitResult)],
    long_help:
      "Waits until a daemon exits, then exits with the daemon's own exit status: its exit code, or 128+N when signal N killed it (0 when it ended cleanly, or with one of its success_exit_codes).",
  },
  clean: { outputs: [json("the daemons forgotten", CleanResult)] },
  "worktree prune": {
    outputs: [
      json("the gone namespaces forgotten, and their daemons stopped and forgotten", WorktreePruneResult),
    ],
  },
  "supervisor status": {
    outputs: [json("whether the supervisor runs, and its details", SupervisorStatus)],
    exit_codes: [{ code: Status.failure, description: "the supervisor is not running (or another failure)" }],
  },
  "boot enable": { outputs: [json("the boot file written, and what is left to do", BootChange)] },
  "boot disable": { outputs: [json("the files removed, and what is left to do", BootChange)] },
  "boot status": { outputs: [json("whether the supervisor starts at boot, and its file", BootState)] },
  "project list": { outputs: [json("the live shells and project sessions", PresenceList)] },
  "config show": {
    outputs: [json("the merged configuration, or (exit 1) its problems", ConfigShown)],
    exit_codes: [{ code: Status.failure, description: "the configuration has problems (listed on stderr)" }],
  },
  daemons: {
    outputs: [
      json(
        "the configured daemons seen from here (project and global files), with the files that declare them",
        ConfiguredDaemons,
      ),
    ],
    exit_codes: [{ code: Status.failure, description: "the configuration has problems (listed on stderr)" }],
  },
  "daemons add": {
    hide: ["json"],
    exit_codes: [
      {
        code: Status.failure,
        description: "refused (the id exists, a value is invalid): the file is untouched",
      },
    ],
  },
  "daemons remove": {
    hide: ["json"],
    exit_codes: [
      { code: Status.failure, description: "refused (the id is not in that file): the file is untouched" },
    ],
  },
  import: {
    outputs: [json("the supervisor.toml text and the warnings (what did not map)", ImportOutput)],
    exit_codes: [
      {
        code: Status.failure,
        description:
          "the source cannot be read or mapped, or the output file exists (without --force); nothing was written",
      },
    ],
  },
  export: {
    outputs: [
      json("the files (with --out: the paths written) and the warnings of what did not map", ExportOutput),
    ],
    exit_codes: [
      {
        code: Status.failure,
        description:
          "the configuration has problems, or --out would replace files (without --force): nothing written; or --check's validator refused the files",
      },
    ],
  },
  "config validate": {
    outputs: [json("the verdict, with every problem when invalid", ConfigVerdict)],
    exit_codes: [{ code: Status.failure, description: "the configuration has problems (listed on stderr)" }],
  },
  "proxy add": {
    exit_codes: [
      {
        code: Status.failure,
        description: "the slug names another daemon, or the file cannot be edited; nothing was written",
      },
      { code: Status.usage, description: "an invalid slug or daemon name, or --dir is not a directory" },
    ],
  },
  "proxy remove": {
    exit_codes: [
      {
        code: Status.failure,
        description: "no such slug (the closest ones are on stderr); the file is untouched",
      },
    ],
  },
  "proxy status": {
    outputs: [
      json("the proxy's settings and CA, and every slug with its daemon's status and port", ProxyStatus),
    ],
  },
  "settings list": { outputs: [json("every setting (or a group's), in the schema's order", SettingList)] },
  "settings get": {
    outputs: [json("the setting, its value in force and where it comes from", SettingEntry)],
    exit_codes: [{ code: Status.failure, description: "unknown setting (the closest keys are on stderr)" }],
  },
  "settings set": {
    exit_codes: [
      {
        code: Status.failure,
        description: "unknown setting, bad value, or a file that cannot be edited; nothing was written",
      },
    ],
  },
  completion: {
    hide: ["text"],
    outputs: [{ name: "script", framing: "text", help: "the completion script of the shell", default: true }],
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
        schema: JsonSchemaDocument,
      },
    ],
  },
  usage: {
    hide: ["text"],
    outputs: [{ name: "kdl", framing: "text", help: "the usage spec (KDL) of this CLI", default: true }],
  },
  "spec check": {
    exit_codes: [{ code: Status.failure, description: "the spec has problems (one per line on stderr)" }],
  },
  "spec resolve": { outputs: [json("the resolved outputs and exit codes of every command", ResolveOutput)] },
  "spec describe": {
    hide: ["text"],
    outputs: [
      {
        name: "json",
        framing: "json",
        media_type: JSON_TYPE,
        help: "the MCP description (describe_command)",
        default: true,
        schema: CommandDescription,
      },
      {
        name: "list",
        framing: "json",
        media_type: JSON_TYPE,
        help: "every command (list_commands)",
        select: "--list",
        schema: CommandList,
      },
    ],
    exit_codes: [
      { code: Status.failure, description: "unknown command (the known ones are listed on stderr)" },
    ],
  },
  "spec fmt": {
    hide: ["text"],
    outputs: [
      { name: "kdl", framing: "text", help: "the spec, as the KDL writer formats it", default: true },
    ],
  },
}

/** The CLI's extras: the tables above, with the aliases and the optional value of their sources. */
export const CLI_EXTRAS: Extras = {
  root: ROOT_EXTRAS,
  globals: REMOTE_GLOBAL_FLAGS,
  commands: COMMAND_EXTRAS,
  aliases: {
    ...Object.fromEntries(
      [...new Set(Object.values(ALIASES))].map((path) => [
        path,
        Object.keys(ALIASES).filter((alias) => ALIASES[alias] === path),
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(SUBCOMMAND_ALIASES).flatMap(([command, subs]) =>
        [...new Set(Object.values(subs))].map((sub) => [
          `${command} ${sub}`,
          Object.keys(subs).filter((alias) => subs[alias] === sub),
        ]),
      ),
    ),
  },
  optionalValues: Object.fromEntries(OPTIONAL_VALUE.commands.map((c) => [c, [OPTIONAL_VALUE.flag]])),
  headings: COMMAND_HEADINGS,
  runsAlone: [...RUNS_ALONE],
  hidden: [COMPLETE_COMMAND, CD_COMMAND],
  complete: COMPLETERS,
}
