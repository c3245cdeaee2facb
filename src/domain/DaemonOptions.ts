import { Schema } from "effect"
import { ByteSize } from "./ByteSize.js"
import { CronExpression, RegexString } from "./Cron.js"
import { DependencyEntry } from "./Dependency.js"
import { EnvFileOption } from "./EnvFile.js"
import { globProblem } from "./Glob.js"
import { Health } from "./Health.js"
import { HumanDuration } from "./HumanDuration.js"
import { InstanceCount, MAX_INSTANCES } from "./Instances.js"
import { DaemonArchiveHook, DaemonLogs, LineCount } from "./LogFormat.js"
import {
  normalise,
  Port,
  ReadyCmdOption,
  ReadyDelay,
  ReadyHttpOption,
  ReadyOutputOption,
  ReadyPortOption,
} from "./Readiness.js"
import { StopSignalName } from "./Signal.js"
import { templateProblem } from "./Template.js"

const Command = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0 || "must not be empty", { jsonSchema: { minLength: 1 } }),
  Schema.annotations({ identifier: "Command", description: "A shell command" }),
)

/** A filter: every template placeholder names a template variable (shell syntax, see Template.ts). */
const shellTemplates = <A extends string, I>(schema: Schema.Schema<A, I>) =>
  schema.pipe(Schema.filter((s) => templateProblem(s, "shell") ?? true, { jsonSchema: {} }))

const EnvValue = Schema.transform(
  Schema.Union(Schema.String, Schema.Number, Schema.Boolean),
  shellTemplates(Schema.String),
  { strict: true, decode: (v) => String(v), encode: (s) => s },
).annotations({
  description:
    "An environment variable value; numbers and booleans are turned into strings; supports templates such as {{ daemons.<name>.port }} or {{ env.VAR }} (docs/templates.md)",
})

const Bump = Schema.Union(Schema.Boolean, Schema.NonNegativeInt).annotations({
  description:
    "Shift the ports when one is taken: true = unlimited attempts, N = at most N attempts, false or 0 = off",
})

const Expect = Schema.Array(Port).annotations({ description: "The TCP ports the daemon is expected to bind" })
export const PortSpec = Schema.Struct({
  expect: Expect,
  bump: Schema.optionalWith(Bump, { default: () => false }),
})
export const PortOption = normalise(
  Schema.Union(
    Port,
    Schema.Array(Port),
    Schema.Struct({ expect: Expect, bump: Schema.optional(Bump) }),
  ).annotations({
    description:
      "TCP ports the daemon binds: a port, an array of ports, or { expect = [3000], bump = true | N }. Checked before start; the first is injected as PORT (and all as PORT0..PORTn).",
  }),
  Schema.typeSchema(PortSpec),
  (raw) =>
    typeof raw === "number"
      ? { expect: [raw], bump: false }
      : Array.isArray(raw)
        ? { expect: raw, bump: false }
        : {
            expect: (raw as { expect: Array<number> }).expect,
            bump: (raw as { bump?: boolean | number }).bump ?? false,
          },
)

export const OnOutput = Schema.Struct({
  run: shellTemplates(Command).annotations({
    description: "Command to run; the line is in SUPERVISOR_MATCHED_LINE; supports templates",
  }),
  filter: Schema.optional(
    Schema.String.annotations({ description: "Fire only on lines containing this substring" }),
  ),
  regex: Schema.optional(RegexString.annotations({ description: "Fire only on lines matching this regex" })),
  debounce: Schema.optional(
    HumanDuration.annotations({
      description: "Fire at most once per this window (leading edge)",
      default: "1s" as never, // documents the encoded default in the JSON Schema
    }),
  ),
})
export const OnOutputOption = normalise(
  Schema.Union(
    shellTemplates(Command),
    OnOutput.pipe(
      Schema.filter((h) =>
        h.filter !== undefined && h.regex !== undefined ? "set either filter or regex, not both" : true,
      ),
    ),
  ).annotations({
    description:
      'Runs when the daemon prints a line: a command, or { run, filter = "substring" | regex = "pattern", debounce = "1s" }',
  }),
  Schema.typeSchema(OnOutput),
  (raw) => (typeof raw === "string" ? { run: raw } : raw),
)

const hook = (when: string) =>
  Schema.optional(
    shellTemplates(Command).annotations({
      description: `Command run ${when}; supports templates such as {{ daemon.port }}`,
    }),
  )
export const Hooks = Schema.Struct({
  on_ready: hook("when the daemon becomes ready"),
  on_fail: hook("when the daemon fails and all retries are exhausted"),
  on_retry: hook("before each retry attempt"),
  on_stop: hook("when the daemon is explicitly stopped"),
  on_exit: hook("on any termination: stop, clean exit or crash, also at supervisor shutdown"),
  on_unhealthy: hook("when the daemon's health check failed `failures` times in a row"),
  on_output: Schema.optional(OnOutputOption),
}).annotations({ identifier: "Hooks", description: "Lifecycle hooks: shell commands run in the background" })
export type HookName = keyof typeof Hooks.fields
/** Every hook a daemon may configure: the keys of its `hooks` table. */
export const HOOK_NAMES = Object.keys(Hooks.fields) as ReadonlyArray<HookName>

export const RETRIGGERS = ["finish", "always", "success", "fail"] as const
const Schedule = CronExpression.annotations({
  description: "A cron expression with 6 fields: second minute hour day month weekday",
})
export const CronSpec = Schema.Struct({
  schedule: Schedule,
  retrigger: Schema.optionalWith(Schema.Literal(...RETRIGGERS), { default: () => "finish" as const }),
  immediate: Schema.optionalWith(Schema.Boolean, { default: () => false }),
})
export const CronOption = normalise(
  Schema.Union(
    CronExpression,
    Schema.Struct({
      schedule: Schedule,
      retrigger: Schema.optional(
        Schema.Literal(...RETRIGGERS).annotations({
          description:
            "When the schedule fires while the previous run is still going: finish (default), always, success, fail",
        }),
      ),
      immediate: Schema.optional(
        Schema.Boolean.annotations({
          description: "Also fire if a scheduled time fell within the 10 seconds before the daemon started",
        }),
      ),
    }),
  ).annotations({
    description:
      'Start the daemon on a schedule: a 6-field cron expression, or { schedule, retrigger = "finish", immediate = false }',
  }),
  Schema.typeSchema(CronSpec),
  (raw) =>
    typeof raw === "string"
      ? { schedule: raw, retrigger: "finish" as const, immediate: false }
      : {
          schedule: raw.schedule,
          retrigger: raw.retrigger ?? ("finish" as const),
          immediate: raw.immediate ?? false,
        },
)

export const StopSignalSpec = Schema.Struct({
  signal: Schema.typeSchema(StopSignalName),
  timeout: Schema.optional(Schema.typeSchema(HumanDuration)),
})
export const StopSignalOption = normalise(
  Schema.Union(
    StopSignalName,
    Schema.Struct({
      signal: StopSignalName.annotations({ description: "The signal; the SIG prefix may be left out" }),
      timeout: Schema.optional(
        HumanDuration.annotations({ description: "Wait this long for the exit before SIGKILL" }),
      ),
    }),
  ).annotations({
    description: 'Signal sent to the process group on stop: a name, or { signal = "TERM", timeout = "10s" }',
    default: "SIGTERM",
  }),
  Schema.typeSchema(StopSignalSpec),
  (raw) => (typeof raw === "string" ? { signal: raw } : raw),
)

export const RESTART_POLICIES = ["on-failure", "always", "never"] as const
export const RestartPolicy = Schema.Literal(...RESTART_POLICIES)
export type RestartPolicy = typeof RestartPolicy.Type

/** An exit status a process can report: 0 to 255. */
const ExitCode = Schema.Int.pipe(
  Schema.between(0, 255, { message: () => "expected an exit code: a whole number from 0 to 255" }),
).annotations({
  message: () => ({ message: "expected an exit code: a whole number from 0 to 255", override: true }),
})
export const SuccessExitCodes = Schema.Array(ExitCode).pipe(
  Schema.filter((codes) => codes.length > 0 || "list at least one exit code, such as [0]", {
    jsonSchema: { minItems: 1 },
  }),
)

// `default` here only documents the default (JSON Schema, docs): a file leaves unset keys unset
// so that later files can override earlier ones key by key.
const opt = <A, I>(schema: Schema.Schema<A, I>, description: string, defaultValue?: I) =>
  Schema.optional(
    schema.annotations(
      defaultValue === undefined ? { description } : { description, default: defaultValue as unknown as A },
    ),
  )

/**
 * The keys of a `[daemons.<name>]` table as written in one file. Every key is
 * optional here: a `.local` file may override a few keys of a daemon defined
 * elsewhere. `run` is required once all files are merged.
 */
/** `[daemons.<name>.export]`: what `supervisor export` writes for the daemon, beyond its other keys. */
export const DaemonExport = Schema.Struct({
  image: Schema.optional(
    Schema.String.pipe(
      Schema.filter(
        (s) => s.trim().length > 0 || 'must not be empty: write an image such as "registry.example/app:1.2"',
        {
          jsonSchema: { minLength: 1 },
        },
      ),
    ).annotations({
      description:
        "The image of the daemon's container in `export compose` and `export kubernetes` (over --image): it holds the daemon's programs and files",
    }),
  ),
  env: Schema.optional(
    Schema.Record({ key: Schema.String, value: EnvValue }).annotations({
      description:
        'Environment variables of the exported daemon only, over its env and PORT: { HOST = "0.0.0.0" } where a container must listen beyond its loopback',
    }),
  ),
}).annotations({ identifier: "DaemonExport", description: "What `supervisor export` writes for the daemon" })

export const daemonOptionFields = {
  run: opt(
    shellTemplates(Command),
    "Command to execute, wrapped in `sh -c`. A leading `exec` makes the tracked PID the daemon itself. Templates such as `{{ daemon.port }}`, `{{ daemons.<name>.port }}` or `{{ env.VAR }}` render at start (docs/templates.md); other `{{ ... }}` text is kept as written.",
  ),
  dir: opt(
    Schema.String,
    "Working directory; relative to the config file, `~` expands to the home directory",
  ),
  env: opt(
    Schema.Record({
      key: Schema.String,
      value: EnvValue,
    }),
    "Environment variables for the daemon; values may contain templates such as `{{ daemons.<name>.port }}`, rendered at start (docs/templates.md)",
  ),
  env_file: opt(
    EnvFileOption,
    "Dotenv files of the daemon, read at each start (below its `env`): a path, or a list of paths and { path, optional = true } tables",
  ),
  user: opt(
    Schema.transform(Schema.Union(Schema.String, Schema.NonNegativeInt), Schema.String, {
      strict: true,
      decode: String,
      encode: (s) => s,
    }),
    "Unix user name or numeric UID to run as (the supervisor must be root)",
  ),
  retry: opt(
    Schema.Union(Schema.NonNegativeInt, Schema.Boolean),
    "Retries after a crash: a number, true (forever) or false/0 (none)",
    0,
  ),
  auto: opt(Schema.Array(Schema.Literal("start", "stop")), "Auto-start and auto-stop with the shell hook"),
  restart: opt(
    RestartPolicy,
    'When the daemon is restarted after it exits on its own: "on-failure" (a failure, as `retry` allows), "always" (any exit, forever, with the retry backoff; never after a stop) or "never"',
    "on-failure",
  ),
  success_exit_codes: opt(
    SuccessExitCodes,
    "The exit codes that are a success, not a failure: no retry, no on_fail, a `completed` dependency met, `wait` exits 0",
    [0],
  ),
  restart_dependents: opt(
    Schema.Boolean,
    "When the daemon restarts (a retry, watch, a manual restart, ...), restart its running dependents once it is ready again, in dependency order",
    false,
  ),
  instances: opt(
    InstanceCount,
    `How many processes of the daemon run (1 to ${MAX_INSTANCES}): with instances set, each is a daemon of its own named <name>.1 to <name>.N, on the ports of the daemon plus its index minus one (docs/replicas.md)`,
    1,
  ),
  ready_delay: opt(
    ReadyDelay,
    'How long to wait before the daemon counts as ready: a duration ("2s", "500ms") or a number of seconds (default 3s when no other ready check is set)',
  ),
  ready_output: opt(ReadyOutputOption, "Ready when an output line matches this regex"),
  ready_http: opt(ReadyHttpOption, "Ready when this URL answers"),
  ready_port: opt(ReadyPortOption, "Ready when this TCP port is listening"),
  ready_cmd: opt(ReadyCmdOption, "Ready when this shell command exits 0"),
  health: opt(
    Health,
    "A liveness check run while the daemon is ready: one of http, port or cmd; after `failures` failed checks in a row it is unhealthy and restarted",
  ),
  depends: opt(
    Schema.Array(DependencyEntry),
    'Daemons to start first: short names or qualified IDs, or { id = "migrate", condition = "completed" } (ready, completed, completed_once or started; default ready)',
    [],
  ),
  watch: opt(
    Schema.Array(
      Schema.String.pipe(
        Schema.filter((p) => {
          const problem = globProblem(p)
          if (problem === undefined) return true
          // with the fix: pair the bracket, or escape the character meant literally
          const c = problem.match(/: "(.)" without/)?.[1]
          return c === undefined
            ? `not a valid glob: ${problem}; remove it`
            : `not a valid glob: ${problem}; pair it, or escape it to match "${c}" itself ("\\\\${c}" in a TOML string)`
        }),
      ),
    ),
    "Glob patterns, relative to the config file; a change restarts the daemon",
    [],
  ),
  watch_mode: opt(
    Schema.Literal("native", "poll", "auto"),
    "native (OS notifications), poll (for NFS and remote mounts) or auto",
    "native",
  ),
  port: opt(PortOption, "TCP ports the daemon binds"),
  expected_port: opt(Schema.Array(Port), "Deprecated: use `port`"),
  auto_bump_port: opt(Schema.Boolean, "Deprecated: use `port.bump`", false),
  port_bump_attempts: opt(
    Schema.NonNegativeInt.annotations({
      message: () => ({ message: "expected a whole number, 0 or more", override: true }),
    }),
    "Deprecated: use `port.bump`",
    10,
  ),
  boot_start: opt(Schema.Boolean, "Start the daemon automatically on system boot", false),
  hooks: opt(Hooks, "Lifecycle hooks"),
  cron: opt(CronOption, "Start the daemon on a cron schedule"),
  tool_manager: opt(
    Schema.Boolean,
    "Run the command through the tool-version manager's exec wrapper (falls back to general.tool_manager)",
  ),
  export: opt(
    DaemonExport,
    'What `supervisor export` writes for the daemon: { image = "registry.example/app:1.2", env = { HOST = "0.0.0.0" } }',
  ),
  memory_limit: opt(ByteSize, "Kill the daemon when its RSS (whole process group) exceeds this size"),
  cpu_limit: opt(
    Schema.Positive.annotations({
      message: () => "expected a positive number: percent of one core (100 = one full core)",
    }),
    "Kill the daemon when its CPU use (percent of one core, whole group) stays above this",
  ),
  stop_signal: opt(StopSignalOption, "Signal sent on stop", "SIGTERM"),
  logs: opt(DaemonLogs, "How the daemon's output is stored (defaults in [settings.logs])"),
  pty: opt(
    Schema.Boolean,
    "Run the daemon under a pseudo-terminal (for programs that colour or buffer differently without one); its output is still kept whole across a supervisor crash",
    false,
  ),
  stdin: opt(
    Schema.Literal("null", "pipe"),
    'What the daemon reads on stdin: "null" (/dev/null, end of file at once) or "pipe" (a named pipe that `supervisor send` and the API write to). A daemon with pty = true reads its terminal instead',
    "null",
  ),
  // pitchfork's other spellings, read with a warning that shows ours (src/config/pitchforkForms.ts)
  expect: opt(
    Expect,
    "a list of the TCP ports the daemon is expected to bind (deprecated: pitchfork's spelling of `port.expect`; write port = { expect = [...] })",
  ),
  bump: opt(
    Bump,
    "how many ports above the expected ones may be tried (deprecated: pitchfork's spelling of `port.bump`; write port = { expect = [...], bump = N })",
  ),
  ready: opt(
    Schema.Struct({
      delay: Schema.optional(ReadyDelay),
      output: Schema.optional(ReadyOutputOption),
      http: Schema.optional(ReadyHttpOption),
      port: Schema.optional(ReadyPortOption),
      cmd: Schema.optional(ReadyCmdOption),
    }),
    "a table of readiness checks: delay, output, http, port, cmd (deprecated: write ready_delay, ready_output, ready_http, ready_port, ready_cmd)",
  ),
  time_retention: opt(
    HumanDuration,
    'how long the daemon\'s log lines are kept, such as "7d" (deprecated: write it in [daemons.<name>.logs])',
  ),
  line_retention: opt(
    LineCount,
    "how many of the daemon's log lines are kept (deprecated: write it in [daemons.<name>.logs])",
  ),
  archive_hook: opt(
    DaemonArchiveHook,
    "a command given the log lines that retention removes (deprecated: write it in [daemons.<name>.logs])",
  ),
}

/** The readiness keys of a daemon (`ready_delay`, `ready_output`, ...). */
export type ReadyKey = Extract<keyof typeof daemonOptionFields, `ready_${string}`>
export const READY_KEYS = Object.keys(daemonOptionFields).filter((k): k is ReadyKey => k.startsWith("ready_"))

export const DaemonOptions = Schema.Struct(daemonOptionFields).annotations({
  identifier: "DaemonOptions",
  title: "Daemon",
  description: "A daemon: a long-running process the supervisor starts, watches and restarts",
})
export type DaemonOptions = typeof DaemonOptions.Type

export const DEPRECATED_PORT_KEYS = ["expected_port", "auto_bump_port", "port_bump_attempts"] as const
