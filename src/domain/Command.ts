// The command protocol (docs/api.md, "Commands"): every operation a front-end or a background
// actor can ask of the supervisor, one tagged request each. `Control.handle` answers them all in
// one `match`; `POST /api/commands` carries them, and the seed's routes are aliases that build
// them. Each request names its success and failure schemas, so any client encodes the command
// and decodes its answer with the same classes.
import { Schema } from "effect"
import { NamespaceEntry } from "./ApiNamespaces.js"
import {
  CleanResult,
  InputResult,
  LogLines,
  ScaleResult,
  StartOutcomes,
  StopResults,
  ToggleResults,
  WaitResult,
} from "./CliOutput.js"
import { CommandError } from "./CommandErrors.js"
import { DaemonConfig } from "./DaemonConfig.js"
import { DaemonDefinition } from "./DaemonDefinition.js"
import { Explanation } from "./Explain.js"
import { InstanceCount } from "./Instances.js"
import { LogFilters } from "./LogFilters.js"
import { Reason } from "./Reason.js"
import { SettingList } from "./SettingsOutput.js"

/** The directory a CLI ran in, with its environment: the configuration seen from there. */
export const FromDirectory = Schema.TaggedStruct("Directory", {
  cwd: Schema.String,
  env: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), {
    default: () => ({}),
  }),
  /** Refuse a configuration with warnings (ConfigUnusable): for a sender that cannot show them. */
  strict: Schema.optionalWith(Schema.Boolean, { default: () => false }),
})

/** A namespace (a project): short IDs and `all` mean its daemons. */
export const FromNamespace = Schema.TaggedStruct("Namespace", { namespace: Schema.String })

/** Where a selection is read: without one, IDs are qualified and `all` means every daemon known. */
export const From = Schema.Union(FromDirectory, FromNamespace).annotations({ identifier: "CommandFrom" })
export type From = typeof From.Type

/**
 * Which daemons a command acts on: IDs (as typed from `from`), a group of the configuration, every
 * daemon (`all`), or the daemons of the project files (`files: "local"`) or of the global ones.
 */
export const Selection = Schema.Struct({
  ids: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  all: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  group: Schema.optional(Schema.String),
  files: Schema.optional(Schema.Literal("local", "global")),
  from: Schema.optional(From),
}).annotations({ identifier: "Selection" })
export type Selection = typeof Selection.Type

/**
 * How long a start is waited for: `none` answers once it is under way (no outcomes), `ready`
 * answers every outcome once each daemon is ready, completed or failed, `events` streams the
 * start's progress (`StartEvent`s: what each daemon waits for, each outcome, all outcomes last).
 */
export const WaitMode = Schema.Literal("none", "ready", "events")
export type WaitMode = typeof WaitMode.Type

/**
 * What a start changes of the selected daemons' definitions: readiness checks (any one replaces
 * every configured check), the expected ports and the port bump (`start --expected-port --bump`).
 */
export const Overrides = Schema.Struct({
  ready_delay: DaemonConfig.fields.ready_delay,
  ready_output: DaemonConfig.fields.ready_output,
  ready_http: DaemonConfig.fields.ready_http,
  ready_port: DaemonConfig.fields.ready_port,
  ready_cmd: DaemonConfig.fields.ready_cmd,
  expected_ports: Schema.optional(Schema.Array(Schema.Int)),
  bump: Schema.optional(Schema.Union(Schema.Boolean, Schema.NonNegativeInt)),
}).annotations({ identifier: "Overrides" })
export type Overrides = typeof Overrides.Type

const reason = { reason: Schema.optionalWith(Reason, { default: () => "api" as const }) }
const wait = { wait: Schema.optionalWith(WaitMode, { default: () => "ready" as const }) }

/** Starts the selection with the dependencies it needs, dependencies first; `force` restarts it. */
export class Start extends Schema.TaggedRequest<Start>()("Start", {
  failure: CommandError,
  success: StartOutcomes,
  payload: {
    selection: Selection,
    force: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    overrides: Schema.optional(Overrides),
    ...reason,
    ...wait,
  },
}) {}

/**
 * Restarts the selection (`all`: every running daemon). `if_running`: only those that run, and
 * without waiting (a watched file changed); `detail` follows the reason in the daemon's log.
 */
export class Restart extends Schema.TaggedRequest<Restart>()("Restart", {
  failure: CommandError,
  success: StartOutcomes,
  payload: {
    selection: Selection,
    overrides: Schema.optional(Overrides),
    if_running: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    detail: Schema.optional(Schema.String),
    ...reason,
    ...wait,
  },
}) {}

/** What `RestartDependents` did: the dependents it restarted, and those a command under way restarts. */
export const DependentRestarts = Schema.Struct({
  restarted: Schema.Array(Schema.String),
  left_to_commands: Schema.Array(Schema.String),
}).annotations({ identifier: "DependentRestarts" })

/**
 * Restarts, without waiting, the running dependents of `id` whose process started before its
 * current run (`restart_dependents`: sent once `id` is ready in a new run), in dependency order;
 * a dependent that a command under way restarts itself (`restart db api`) is left to it.
 */
export class RestartDependents extends Schema.TaggedRequest<RestartDependents>()("RestartDependents", {
  failure: CommandError,
  success: DependentRestarts,
  payload: {
    id: Schema.String,
    reason: Schema.optionalWith(Reason, { default: () => "dependency" as const }),
  },
}) {}

/** Stops the selection (`all`: every running daemon), dependents before their dependencies. */
export class Stop extends Schema.TaggedRequest<Stop>()("Stop", {
  failure: CommandError,
  success: StopResults,
  payload: { selection: Selection, ...reason },
}) {}

/** Lets the selected daemons start again. */
export class Enable extends Schema.TaggedRequest<Enable>()("Enable", {
  failure: CommandError,
  success: ToggleResults,
  payload: { selection: Selection, ...reason },
}) {}

/** Refuses starts of the selected daemons until they are enabled (a running one keeps running). */
export class Disable extends Schema.TaggedRequest<Disable>()("Disable", {
  failure: CommandError,
  success: ToggleResults,
  payload: { selection: Selection, ...reason },
}) {}

/**
 * Forgets stopped daemons and deletes their logs: the selected ones, those of `namespaces`, or
 * (with neither) every stopped daemon.
 */
export class Clean extends Schema.TaggedRequest<Clean>()("Clean", {
  failure: CommandError,
  success: CleanResult,
  payload: {
    selection: Selection,
    namespaces: Schema.optional(Schema.Array(Schema.String)),
    ...reason,
  },
}) {}

/** Waits until one daemon is neither running nor waiting for a retry; how it ended. */
export class Wait extends Schema.TaggedRequest<Wait>()("Wait", {
  failure: CommandError,
  success: WaitResult,
  payload: { id: Schema.String, from: Schema.optional(From), ...reason },
}) {}

/**
 * Starts daemons from the definitions given (an ad-hoc daemon of `supervisor run`, or a client
 * that resolved them itself), with `dependencies` started first when they do not run.
 */
export class Run extends Schema.TaggedRequest<Run>()("Run", {
  failure: CommandError,
  success: StartOutcomes,
  payload: {
    definitions: Schema.Array(DaemonDefinition),
    dependencies: Schema.optionalWith(Schema.Array(DaemonDefinition), { default: () => [] }),
    force: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    ...reason,
    ...wait,
  },
}) {}

/**
 * Stops a running daemon as a failure (a limit was exceeded): it ends `errored` with `message`
 * and is retried if it has retries left. With `pid`, only if that process is still its run.
 */
export class Kill extends Schema.TaggedRequest<Kill>()("Kill", {
  failure: CommandError,
  success: Schema.Struct({ killed: Schema.Boolean }),
  payload: {
    id: Schema.String,
    message: Schema.String,
    pid: Schema.optional(Schema.Int),
    ...reason,
  },
}) {}

/**
 * The stored log entries of the selection (`all`: every daemon known), filtered, several daemons
 * interleaved by time. `stream` answers them as ndjson, a LogEntry per line, read as they are sent.
 */
export class Logs extends Schema.TaggedRequest<Logs>()("Logs", {
  failure: CommandError,
  success: LogLines,
  payload: {
    selection: Selection,
    ...LogFilters.fields,
    stream: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    ...reason,
  },
}) {}

/**
 * Follows the selection's logs: the last `lines` (default 10) stored entries that match, then every
 * new one, until the client leaves. Always streamed: ndjson, a LogStreamItem per line (an entry, or
 * `{ _clear, _gen }` when the logs are cleared). `until` is refused: new lines are always later.
 */
export class Tail extends Schema.TaggedRequest<Tail>()("Tail", {
  failure: CommandError,
  success: Schema.Void,
  payload: { selection: Selection, ...LogFilters.fields, ...reason },
}) {}

/**
 * Every setting with its value in force, its default and where it comes from: as read from the
 * directory of `from` with its environment (`supervisor settings` there), else the supervisor's
 * own global settings (its global files and environment, read again when they change).
 */
export class ReadSettings extends Schema.TaggedRequest<ReadSettings>()("Settings", {
  failure: CommandError,
  success: SettingList,
  payload: { from: Schema.optional(FromDirectory), ...reason },
}) {}

/** The namespaces the supervisor knows: its known projects' and those of the daemons it ran. */
export class Namespaces extends Schema.TaggedRequest<Namespaces>()("Namespaces", {
  failure: CommandError,
  success: Schema.Array(NamespaceEntry),
  payload: { ...reason },
}) {}

/**
 * Sets how many instances of a daemon with `instances` run (docs/replicas.md): starts the missing
 * ones, stops (and forgets) those above `count`, the highest first. The count lasts until the
 * daemon is stopped; the configuration file is not changed.
 */
export class Scale extends Schema.TaggedRequest<Scale>()("Scale", {
  failure: CommandError,
  success: ScaleResult,
  payload: { id: Schema.String, count: InstanceCount, from: Schema.optional(From), ...reason },
}) {}

/**
 * Types into a running daemon (docs/attach.md): `text`, then the named `keys` (tmux's names,
 * src/domain/keys.ts), then Enter with `enter`; `data` is raw bytes (base64), typed first. A
 * `pty = true` daemon reads them from its terminal, a `stdin = "pipe"` one from its stdin.
 */
export class Input extends Schema.TaggedRequest<Input>()("Input", {
  failure: CommandError,
  success: InputResult,
  payload: {
    id: Schema.String,
    data: Schema.optional(Schema.Uint8ArrayFromBase64),
    text: Schema.optional(Schema.String),
    keys: Schema.optional(Schema.Array(Schema.String)),
    enter: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    from: Schema.optional(From),
    ...reason,
  },
}) {}

/** Sets the window size of a `pty = true` daemon's terminal (its programs get SIGWINCH). */
export class Resize extends Schema.TaggedRequest<Resize>()("Resize", {
  failure: CommandError,
  success: Schema.Struct({ id: Schema.String }),
  payload: {
    id: Schema.String,
    rows: Schema.Int.pipe(Schema.between(1, 65535)),
    cols: Schema.Int.pipe(Schema.between(1, 65535)),
    ...reason,
  },
}) {}

/** Why a daemon is not running or not ready (docs/why.md): its reasons, its dependencies' below. */
export class Explain extends Schema.TaggedRequest<Explain>()("Explain", {
  failure: CommandError,
  success: Explanation,
  payload: { id: Schema.String, from: Schema.optional(From), ...reason },
}) {}

/** Every command, by its `_tag`. */
export const Command = Schema.Union(
  Start,
  Restart,
  RestartDependents,
  Stop,
  Enable,
  Disable,
  Clean,
  Wait,
  Run,
  Kill,
  Scale,
  Input,
  Resize,
  Explain,
  Logs,
  Tail,
  ReadSettings,
  Namespaces,
).annotations({
  identifier: "Command",
})
export type Command = typeof Command.Type

/** The commands whose progress can be streamed (`wait: "events"`). */
export type StartingCommand = Start | Restart | Run

export const isStreamed = (c: Command): c is StartingCommand =>
  (c._tag === "Start" || c._tag === "Restart" || c._tag === "Run") && c.wait === "events"

/** The commands answered with log lines as ndjson: a tail, and a logs query with `stream`. */
export type LogStreamCommand = Logs | Tail

export const isLogStream = (c: Command): c is LogStreamCommand =>
  c._tag === "Tail" || (c._tag === "Logs" && c.stream)

/** Every tag, for the metrics and the docs. */
export const COMMAND_TAGS = Command.members.map((m) => m._tag)
