import { Duration, Schema } from "effect"
import { HumanDuration } from "./HumanDuration.js"
import { LogFormatName, logPolicyFields } from "./LogFormat.js"
import { DEFAULT_TIMESTAMP_FORMAT, TimestampFormat } from "./timestampFormat.js"

// The `default` annotation is the decoded value, as Effect expects: the JSON Schema encodes it
// ("10s" for a duration; an encoded value there would be dropped) and settingsInfo.ts too.
const setting = <A, I>(schema: Schema.Schema<A, I>, defaultValue: I, description: string) => {
  const decode = () => Schema.decodeSync(schema)(defaultValue)
  return Schema.optionalWith(schema.annotations({ description, default: decode() }), { default: decode })
}
const maybe = <A, I>(schema: Schema.Schema<A, I>, description: string) =>
  Schema.optional(schema.annotations({ description }))

const UserName = Schema.transform(Schema.Union(Schema.String, Schema.NonNegativeInt), Schema.String, {
  strict: true,
  decode: String,
  encode: (s) => s,
})
/** A level of the supervisor's own log, as pitchfork's (and SUPERVISOR_LOG's) names. */
export const SupervisorLogLevel = Schema.Literal(
  "off",
  "error",
  "warn",
  "info",
  "debug",
  "trace",
).annotations({
  message: () => ({ message: "expected one of: off, error, warn, info, debug, trace", override: true }),
})
export type SupervisorLogLevel = typeof SupervisorLogLevel.Type

const Attempts = (max: number) =>
  Schema.Int.pipe(Schema.between(1, max)).annotations({
    message: () => ({ message: `expected a whole number from 1 to ${max}`, override: true }),
  })

const BindPort = Schema.Int.pipe(Schema.between(0, 65535)).annotations({
  message: () => ({
    message: "expected a port number between 0 and 65535 (0 picks a free one)",
    override: true,
  }),
})

export const GeneralSettings = Schema.Struct({
  interval: setting(HumanDuration, "10s", "Tick of the memory and CPU limit checks"),
  tool_manager: setting(
    Schema.Boolean,
    false,
    "Run every daemon through the tool-version manager's exec wrapper",
  ),
  tool_manager_bin: setting(
    Schema.String,
    "mise",
    "The tool-version manager binary (name on PATH or absolute path); daemons run as `<bin> exec -- sh -c <run>`",
  ),
  shell: setting(
    Schema.NonEmptyTrimmedString.annotations({
      message: () => ({
        message: 'expected a non-empty command without surrounding spaces, e.g. "sh -c"',
        override: true,
      }),
    }),
    "sh -c",
    "Shell that wraps each daemon's `run` command",
  ),
  autostop_delay: setting(
    HumanDuration,
    "1m",
    'How long after the last shell or project session leaves a project its `auto = ["stop"]` daemons are stopped (0s: at once)',
  ),
  secret_patterns: setting(
    Schema.String,
    "*TOKEN*,*SECRET*,*PASSWORD*,*_KEY",
    "Comma-separated patterns of environment variable names (`*` any text, case-insensitive) whose values `config show`, the API and MCP show as ***",
  ),
  log_level: setting(
    SupervisorLogLevel,
    "info",
    "Level of the supervisor's own log on a terminal or a pipe (`supervisor run` in the foreground): off, error, warn, info, debug, trace",
  ),
  log_file_level: maybe(
    SupervisorLogLevel,
    "Level of the supervisor's own log when it goes to supervisor.log (a supervisor started in the background); default: log_level",
  ),
  startup_log_timestamps: setting(
    Schema.Boolean,
    false,
    "Put the time (HH:MM:SS) before each line `start` prints about the daemons it waits for",
  ),
}).annotations({ identifier: "GeneralSettings", description: "General settings" })

export const SupervisorSettings = Schema.Struct({
  user: maybe(UserName, "Default Unix user (name or UID) the daemons run as; needs a root supervisor"),
  stop_timeout: setting(
    HumanDuration,
    "5s",
    "How long a stop waits for the process group to exit before SIGKILL",
  ),
  watch_poll_interval: setting(HumanDuration, "500ms", "Scan cadence of polling file watchers"),
  watch_interval: setting(HumanDuration, "10s", "How often the supervisor refreshes its watch configuration"),
  file_watch_debounce: setting(
    HumanDuration,
    "1s",
    "Quiet time after a change to a watched file before the daemon is restarted",
  ),
  cpu_violation_threshold: setting(
    Schema.Int.pipe(Schema.positive()).annotations({
      message: () => ({ message: "expected a whole number, 1 or more", override: true }),
    }),
    3,
    "Consecutive samples above cpu_limit before a daemon is killed",
  ),
  ready_check_interval: setting(HumanDuration, "500ms", "Polling interval of readiness checks"),
  hook_timeout: setting(
    HumanDuration,
    "30s",
    "How long a lifecycle hook may run before its process group is killed",
  ),
  auto_start: setting(
    Schema.Boolean,
    true,
    "Start the supervisor process in the background when a command needs it",
  ),
  restart_delay: setting(
    HumanDuration,
    "0s",
    "Pause between the stop and the start of a restart (the stop already waits for the process group to exit)",
  ),
  http_client_timeout: setting(
    HumanDuration,
    "5s",
    "How long one attempt of a `ready_http` check waits for an answer",
  ),
  port_bump_attempts: setting(
    Attempts(1000),
    10,
    "How many port shifts a bare `--bump` (start, run, daemons add) and the deprecated `auto_bump_port` allow",
  ),
  orphan_policy: setting(
    Schema.Literal("adopt", "kill").annotations({
      message: () => ({ message: 'expected "adopt" or "kill"', override: true }),
    }),
    "adopt",
    "What a starting supervisor does with the daemons a previous one left running: adopt them, or kill them (a graceful stop)",
  ),
  events_retained: setting(
    Schema.Int.pipe(Schema.positive()).annotations({
      message: () => ({ message: "expected a whole number, 1 or more", override: true }),
    }),
    2000,
    "How many of the latest events the supervisor keeps for clients that resume with `since` (GET /api/events)",
  ),
  container: setting(
    Schema.Boolean,
    false,
    "Container mode for `supervisor supervisor run`, as `--container` (on by itself when it runs as PID 1): reap orphans, print each daemon's output, stop in order on SIGTERM",
  ),
}).annotations({ identifier: "SupervisorSettings", description: "Settings of the supervisor process" })

export const WebSettings = Schema.Struct({
  auto_start: setting(Schema.Boolean, false, "Serve the web UI and HTTP API when the supervisor starts"),
  bind_address: setting(Schema.String, "127.0.0.1", "Address of the web UI listener; keep it on loopback"),
  bind_port: setting(BindPort, 3120, "Port of the web UI listener; 0 picks a free one"),
  port_attempts: setting(
    Attempts(100),
    10,
    "How many ports the listener tries when bind_port is busy: bind_port, then the next ones (1: bind_port only)",
  ),
  allow_non_loopback: setting(Schema.Boolean, false, "Allow binding a non-loopback address (plain HTTP!)"),
  log_lines: setting(
    Attempts(100_000),
    100,
    "How many of a daemon's last log lines the web UI's log panel shows when it opens",
  ),
  base_path: setting(
    Schema.String.pipe(
      // pitchfork's "ps" means "/ps" (normalized by host/guard.ts normalizeBasePath)
      Schema.pattern(/^[^\s?#]*$/, {
        message: () => 'a path such as "/supervisor" (no spaces, "?" or "#")',
      }),
    ),
    "",
    "Serve the web UI and the API under this path (for a reverse proxy in front); / redirects to it",
  ),
}).annotations({ identifier: "WebSettings", description: "The web UI listener (it serves the HTTP API too)" })

export const ApiSettings = Schema.Struct({
  auto_start: setting(
    Schema.Boolean,
    false,
    "Serve a dedicated API-only listener when the supervisor starts",
  ),
  bind_address: setting(Schema.String, "127.0.0.1", "Address of the API listener; keep it on loopback"),
  bind_port: setting(BindPort, 3121, "Port of the API-only listener; 0 picks a free one"),
  port_attempts: setting(
    Schema.Int.pipe(Schema.between(1, 100)).annotations({
      message: () => ({ message: "expected a whole number from 1 to 100", override: true }),
    }),
    10,
    "How many ports the listener tries when bind_port is busy: bind_port, then the next ones (1: bind_port only)",
  ),
  allow_non_loopback: setting(Schema.Boolean, false, "Allow binding a non-loopback address (plain HTTP!)"),
  tls: setting(
    Schema.Boolean,
    false,
    "Serve the API listener over HTTPS, with a certificate of the supervisor's local CA (for a remote CLI)",
  ),
  token: maybe(
    Schema.String,
    "The API token; by default one is generated at first start and kept in the state dir",
  ),
}).annotations({ identifier: "ApiSettings", description: "The dedicated HTTP API listener" })

export const ArchiveHook = Schema.Struct({
  command: Schema.NonEmptyTrimmedString.annotations({
    description:
      "Shell command that receives the lines about to be pruned by time_retention or line_retention, as JSON lines on stdin; pruning waits until it exits 0",
  }),
  batch_size: Schema.optionalWith(
    Schema.Int.pipe(Schema.positive()).annotations({
      description: "Lines per run of the command",
      default: 1000,
      message: () => ({ message: "expected a whole number, 1 or more", override: true }),
    }),
    { default: () => 1000 },
  ),
}).annotations({ identifier: "ArchiveHook", description: "Archives log lines before retention prunes them" })

export const LogsSettings = Schema.Struct({
  log_format: setting(LogFormatName, "text", "Default log_format of every daemon ([daemons.<name>.logs])"),
  time_retention: logPolicyFields.time_retention,
  line_retention: logPolicyFields.line_retention,
  archive_hook: maybe(ArchiveHook, "Run a command on the lines about to be pruned"),
  timestamp: setting(
    Schema.Boolean,
    true,
    "Print each line's timestamp in `logs` (`--no-timestamp` leaves it out for one call)",
  ),
  timestamp_format: setting(
    TimestampFormat,
    DEFAULT_TIMESTAMP_FORMAT,
    "strftime format of the timestamps `logs` prints as text (%Y %y %m %d %e %H %I %M %S %p %b %a %j %F %T %%); not of --json",
  ),
}).annotations({ identifier: "LogsSettings", description: "Defaults of the daemons' log storage" })

const ProxyTld = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/, {
    message: () => 'a domain such as "localhost" or "test" (letters, digits, "-" and ".")',
  }),
)

export const ProxySettings = Schema.Struct({
  enable: setting(
    Schema.Boolean,
    false,
    "Serve the reverse proxy (https://<slug>.<tld>) when the supervisor runs",
  ),
  host: setting(Schema.String, "127.0.0.1", "Address the reverse proxy listens on"),
  port: maybe(
    BindPort,
    "Port of the reverse proxy; default 7443 with https, 7080 without (unprivileged, so no root is needed)",
  ),
  https: setting(Schema.Boolean, true, "Serve the proxy over HTTPS with certificates of a local CA"),
  tld: setting(ProxyTld, "localhost", "Domain under which each slug is served: <slug>.<tld>"),
  auto_start: setting(Schema.Boolean, true, "Start a stopped daemon when a request for its slug arrives"),
  auto_start_timeout: setting(
    HumanDuration,
    "30s",
    "How long a request for a stopped daemon waits for it to be ready",
  ),
}).annotations({ identifier: "ProxySettings", description: "The reverse proxy in front of the daemons" })

export const MetricsSettings = Schema.Struct({
  public: setting(
    Schema.Boolean,
    false,
    "Serve GET /metrics without the token to loopback clients of a loopback listener (for a local Prometheus)",
  ),
}).annotations({ identifier: "MetricsSettings", description: "The Prometheus metrics at GET /metrics" })

export const TuiSettings = Schema.Struct({
  refresh_rate: setting(
    Schema.compose(
      HumanDuration,
      Schema.DurationFromSelf.pipe(
        Schema.filter((d) => Duration.between(d, { minimum: "100 millis", maximum: "60 seconds" }), {
          message: () => 'expected a duration from 100ms to 60s, e.g. "2s"',
          jsonSchema: {},
        }),
      ),
    ),
    "5s",
    "How often the dashboard refreshes the usage cells (CPU, memory, uptime); `tui --interval` wins",
  ),
}).annotations({ identifier: "TuiSettings", description: "The terminal dashboard (`supervisor tui`)" })

export const settingGroups = {
  general: GeneralSettings,
  supervisor: SupervisorSettings,
  web: WebSettings,
  api: ApiSettings,
  logs: LogsSettings,
  proxy: ProxySettings,
  metrics: MetricsSettings,
  tui: TuiSettings,
} as const
export type SettingGroup = keyof typeof settingGroups

export const Settings = Schema.Struct({
  general: Schema.optionalWith(GeneralSettings, { default: () => Schema.decodeSync(GeneralSettings)({}) }),
  supervisor: Schema.optionalWith(SupervisorSettings, {
    default: () => Schema.decodeSync(SupervisorSettings)({}),
  }),
  web: Schema.optionalWith(WebSettings, { default: () => Schema.decodeSync(WebSettings)({}) }),
  api: Schema.optionalWith(ApiSettings, { default: () => Schema.decodeSync(ApiSettings)({}) }),
  logs: Schema.optionalWith(LogsSettings, { default: () => Schema.decodeSync(LogsSettings)({}) }),
  proxy: Schema.optionalWith(ProxySettings, { default: () => Schema.decodeSync(ProxySettings)({}) }),
  metrics: Schema.optionalWith(MetricsSettings, { default: () => Schema.decodeSync(MetricsSettings)({}) }),
  tui: Schema.optionalWith(TuiSettings, { default: () => Schema.decodeSync(TuiSettings)({}) }),
}).annotations({
  identifier: "Settings",
  description: "Settings; each key can be overridden by SUPERVISOR_<GROUP>_<KEY>",
})
export type Settings = typeof Settings.Type

/** The environment variable that overrides a setting. */
export const settingEnvVar = (group: string, key: string): string =>
  `SUPERVISOR_${group.toUpperCase()}_${key.toUpperCase()}`

/**
 * pitchfork's shorter variable names of the settings it shares with us, under our prefix
 * (`PITCHFORK_INTERVAL` is `SUPERVISOR_INTERVAL`): each overrides its setting too, when the
 * `SUPERVISOR_<GROUP>_<KEY>` one is not set. The rest of pitchfork's names are ours already.
 */
export const SETTING_ENV_ALIASES: Readonly<Record<string, string>> = {
  "general.interval": "SUPERVISOR_INTERVAL",
  "general.autostop_delay": "SUPERVISOR_AUTOSTOP_DELAY",
  "general.shell": "SUPERVISOR_SHELL",
  "general.tool_manager": "SUPERVISOR_TOOL_MANAGER",
  "general.tool_manager_bin": "SUPERVISOR_TOOL_MANAGER_BIN",
  "general.log_file_level": "SUPERVISOR_LOG_FILE_LEVEL",
  "general.startup_log_timestamps": "SUPERVISOR_STARTUP_LOG_TIMESTAMPS",
  "supervisor.user": "SUPERVISOR_USER",
  "supervisor.stop_timeout": "SUPERVISOR_STOP_TIMEOUT",
  "supervisor.watch_poll_interval": "SUPERVISOR_WATCH_POLL_INTERVAL",
  "supervisor.watch_interval": "SUPERVISOR_WATCH_INTERVAL",
  "supervisor.file_watch_debounce": "SUPERVISOR_FILE_WATCH_DEBOUNCE",
  "supervisor.cpu_violation_threshold": "SUPERVISOR_CPU_VIOLATION_THRESHOLD",
  "supervisor.ready_check_interval": "SUPERVISOR_READY_CHECK_INTERVAL",
  "supervisor.container": "SUPERVISOR_CONTAINER",
  "supervisor.restart_delay": "SUPERVISOR_RESTART_DELAY",
  "supervisor.http_client_timeout": "SUPERVISOR_HTTP_CLIENT_TIMEOUT",
  "supervisor.port_bump_attempts": "SUPERVISOR_PORT_BUMP_ATTEMPTS",
  "supervisor.orphan_policy": "SUPERVISOR_ORPHAN_POLICY",
  "logs.log_format": "SUPERVISOR_LOG_FORMAT",
  "logs.time_retention": "SUPERVISOR_LOG_TIME_RETENTION",
  "logs.line_retention": "SUPERVISOR_LOG_LINE_RETENTION",
  "logs.timestamp": "SUPERVISOR_LOG_TIMESTAMP",
  "logs.timestamp_format": "SUPERVISOR_LOG_TIMESTAMP_FORMAT",
}

/** Every variable that overrides a setting, the one that wins first. */
export const settingEnvVars = (group: string, key: string): ReadonlyArray<string> => {
  const alias = SETTING_ENV_ALIASES[`${group}.${key}`]
  return alias === undefined ? [settingEnvVar(group, key)] : [settingEnvVar(group, key), alias]
}
