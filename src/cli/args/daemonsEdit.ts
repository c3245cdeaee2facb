import { Args, type Command, Options } from "@effect/cli"
import type { RETRIGGERS } from "../../domain/DaemonOptions.js"

// The options of `supervisor daemons add` and `daemons remove` (cli/daemonsEdit.ts), and what
// their actions receive (actions/daemonsEdit.ts).

/** The `cron.retrigger` values, written out: the schemas are not loaded at every start (lazy.ts). */
export const RETRIGGER_CHOICES = ["finish", "always", "success", "fail"] as const satisfies ReadonlyArray<
  (typeof RETRIGGERS)[number]
>

const text = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)
const many = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.repeated)

/** Which file is edited: the project's supervisor.toml unless told otherwise. */
export const scopeOptions = {
  project: Options.boolean("project").pipe(
    Options.withDescription("edit the project's supervisor.toml (the default; created if missing)"),
  ),
  local: Options.boolean("local").pipe(
    Options.withDescription("edit the project's supervisor.local.toml (not committed)"),
  ),
  global: Options.boolean("global").pipe(
    Options.withDescription("edit the user's configuration (~/.config/supervisor/config.toml)"),
  ),
}

export const addOptions = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("the new daemon's name (its [daemons.ID] table)")),
  command: Args.text({ name: "command" }).pipe(
    Args.withDescription("the command to run, after -- (instead of --run): daemons add ID -- CMD ARGS..."),
    Args.repeated,
  ),
  run: text("run", "the command to run, as one shell string (or give it after --)"),
  retry: text("retry", "retries after a failure: a number, or true for no limit"),
  instances: text(
    "instances",
    "how many processes of it run, 1 to 64: named ID.1 to ID.N (docs/replicas.md)",
  ),
  watch: many("watch", "restart it when files matching this glob change (repeat it)"),
  dir: text("dir", "the working directory (relative to the file)"),
  env: many("env", "an environment variable, K=V (repeat it)"),
  readyDelay: text("ready-delay", "ready after this many seconds"),
  readyOutput: text("ready-output", "ready when an output line matches this regex"),
  readyHttp: text("ready-http", "ready when this URL answers 2xx"),
  readyPort: text("ready-port", "ready when this TCP port accepts connections"),
  readyCmd: text("ready-cmd", "ready when this shell command exits 0"),
  port: Options.text("port").pipe(
    Options.withAlias("expected-port"),
    Options.withDescription("a TCP port the daemon binds (repeat it, or 3000,3001)"),
    Options.repeated,
  ),
  bump: text(
    "bump",
    "when a port is taken, shift the ports until they are free: --bump N = at most N shifts, --bump alone = settings.supervisor.port_bump_attempts (10), --bump true = no limit",
  ),
  depends: many("depends", "a daemon to start first (repeat it)"),
  bootStart: Options.boolean("boot-start").pipe(Options.withDescription("start it when the system boots")),
  auto: Options.choice("auto", ["start", "stop"]).pipe(
    Options.withDescription("started (start) or stopped (stop) by the shell hook (repeat it for both)"),
    Options.repeated,
  ),
  autostart: Options.boolean("autostart").pipe(Options.withDescription("the same as --auto start")),
  autostop: Options.boolean("autostop").pipe(Options.withDescription("the same as --auto stop")),
  onReady: text("on-ready", "a command run when it becomes ready"),
  onFail: text("on-fail", "a command run when it fails with no retries left"),
  onRetry: text("on-retry", "a command run before each retry"),
  onStop: text("on-stop", "a command run when it is stopped"),
  onExit: text("on-exit", "a command run when it ends, however"),
  cron: Options.text("cron").pipe(
    Options.withAlias("cron-schedule"),
    Options.withDescription("start it on this schedule (6 fields: second minute hour day month weekday)"),
    Options.optional,
  ),
  cronRetrigger: Options.choice("cron-retrigger", RETRIGGER_CHOICES).pipe(
    Options.withDescription("what a firing does while it runs or after it ended (default finish)"),
    Options.optional,
  ),
  cronImmediate: Options.boolean("cron-immediate").pipe(
    Options.withDescription("also fire for a time of the schedule in the 10 s before it started"),
  ),
  memoryLimit: text("memory-limit", "stop it when it uses more memory than this (e.g. 512MiB)"),
  cpuLimit: text("cpu-limit", "stop it when it uses more CPU than this percentage"),
  ...scopeOptions,
}
export type AddOptions = Command.Command.ParseConfig<typeof addOptions>

export const removeOptions = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("the daemon to remove")),
  ...scopeOptions,
}
export type RemoveOptions = Command.Command.ParseConfig<typeof removeOptions>
