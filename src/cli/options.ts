import { Args, Options } from "@effect/cli"
import type { Option } from "effect"

export const json = Options.boolean("json").pipe(Options.withDescription("print machine-readable JSON"))
export const ids = Args.text({ name: "id" }).pipe(
  Args.withDescription("daemon IDs: short names or namespace/name"),
  Args.repeated,
)
export const all = Options.boolean("all").pipe(
  Options.withAlias("a"),
  Options.withDescription("every daemon"),
)
export const group = Options.text("group").pipe(
  Options.withDescription("the daemons of a group"),
  Options.optional,
)
export const local = Options.boolean("local").pipe(
  Options.withAlias("l"),
  Options.withAlias("all-local"),
  Options.withDescription("every daemon of the project's files (for stop and restart: the running ones)"),
)
export const global = Options.boolean("global").pipe(
  Options.withAlias("g"),
  Options.withAlias("all-global"),
  Options.withDescription("every daemon of the global files (for stop and restart: the running ones)"),
)
export const force = Options.boolean("force").pipe(
  Options.withAlias("f"),
  Options.withDescription("restart it if it is running"),
)
export const quiet = Options.boolean("quiet").pipe(
  Options.withAlias("q"),
  Options.withDescription("print nothing on success"),
)

// Readiness overrides: flags that replace the configured ready checks of the daemons a
// command starts (applied by readyFlags.ts).
export const readyOptions = {
  delay: Options.float("delay").pipe(
    Options.withDescription("ready after this many seconds (replaces the configured ready checks)"),
    Options.optional,
  ),
  output: Options.text("output").pipe(
    Options.withDescription("ready when an output line matches this regex (replaces the configured checks)"),
    Options.optional,
  ),
  http: Options.text("http").pipe(
    Options.withDescription("ready when this URL answers 2xx (replaces the configured checks)"),
    Options.optional,
  ),
  // `--ready-port`: a readiness check, not the `port` key (`--expected-port`); `--port` is pitchfork's name
  port: Options.text("ready-port").pipe(
    Options.withAlias("port"),
    Options.withDescription(
      "ready when this TCP port accepts connections (a readiness check, not the daemon's port: see --expected-port; replaces the configured checks)",
    ),
    Options.optional,
  ),
  cmd: Options.text("cmd").pipe(
    Options.withDescription("ready when this shell command exits 0 (replaces the configured checks)"),
    Options.optional,
  ),
}
export type ReadyFlags = { readonly [K in keyof typeof readyOptions]: Option.Option<string | number> }
