import { Schema } from "effect"
import { daemonOptionFields, Hooks } from "./DaemonOptions.js"
import { DependencyCondition } from "./Dependency.js"
import { EnvFileRef } from "./EnvFile.js"

const f = daemonOptionFields
const withDefault = <S extends Schema.Schema.Any>(schema: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { default: value as never })

/**
 * One daemon, resolved: every file that mentions it merged, defaults applied,
 * `dir` absolute, dependencies qualified, deprecated port keys folded into `port`.
 */
export class DaemonConfig extends Schema.Class<DaemonConfig>("DaemonConfig")({
  run: f.run.from,
  dir: Schema.String,
  env: withDefault(f.env.from, () => ({})),
  env_file: withDefault(
    Schema.Array(EnvFileRef).annotations({
      description: "Its own env files, paths absolute, read at each start (below `env`)",
    }),
    () => [],
  ),
  shared_env: withDefault(
    f.env.from.annotations({
      description: "The top-level [env] of its project's files (below its own env_file and env)",
    }),
    () => ({}),
  ),
  shared_env_file: withDefault(
    Schema.Array(EnvFileRef).annotations({
      description: "The top-level env_file of its project's files, paths absolute (below shared_env)",
    }),
    () => [],
  ),
  user: f.user,
  retry: withDefault(f.retry.from, () => 0),
  auto: withDefault(f.auto.from, () => []),
  restart: withDefault(f.restart.from, () => "on-failure" as const),
  success_exit_codes: withDefault(f.success_exit_codes.from, () => [0]),
  restart_dependents: withDefault(f.restart_dependents.from, () => false),
  /** Unset: one process named as the daemon; set: instances named `<name>.1` to `<name>.N`. */
  instances: f.instances,
  ready_delay: f.ready_delay,
  ready_output: f.ready_output,
  ready_http: f.ready_http,
  ready_port: f.ready_port,
  ready_cmd: f.ready_cmd,
  health: f.health,
  /** The qualified IDs of its dependencies. */
  depends: withDefault(Schema.Array(Schema.String), () => []),
  /** The condition of each dependency that is not `ready` (the default), by qualified ID. */
  depends_conditions: withDefault(
    Schema.Record({ key: Schema.String, value: DependencyCondition }),
    () => ({}),
  ),
  watch: withDefault(f.watch.from, () => []),
  watch_mode: withDefault(f.watch_mode.from, () => "native" as const),
  port: f.port,
  boot_start: withDefault(f.boot_start.from, () => false),
  hooks: withDefault(Hooks, () => ({})),
  cron: f.cron,
  tool_manager: f.tool_manager,
  export: f.export,
  memory_limit: f.memory_limit,
  cpu_limit: f.cpu_limit,
  stop_signal: withDefault(f.stop_signal.from, () => ({ signal: "SIGTERM" as const })),
  logs: f.logs,
  pty: withDefault(f.pty.from, () => false),
  stdin: withDefault(f.stdin.from, () => "null" as const),
}) {}

/** How many retries `retry` allows: Infinity for `true`. */
export const retryLimit = (retry: number | boolean): number =>
  retry === true ? Number.POSITIVE_INFINITY : retry === false ? 0 : retry
