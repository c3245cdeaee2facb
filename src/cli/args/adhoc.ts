// The options of `supervisor run` and `supervisor wait` and their types: what the command (cli/adhoc.ts)
// parses and its action (actions/adhoc.ts) receives.

import { Args, type Command, Options } from "@effect/cli"
import { force, json, quiet, readyOptions } from "../options.js"
import { portOptions } from "../portFlags.js"

/** The readiness flags, with pitchfork's short `run -d` and `run -o`. */
export const runReadyOptions = {
  ...readyOptions,
  delay: readyOptions.delay.pipe(Options.withAlias("d")),
  output: readyOptions.output.pipe(Options.withAlias("o")),
}

export const runOptions = {
  id: Args.text({ name: "id" }),
  command: Args.text({ name: "command" }).pipe(Args.repeated),
  ...runReadyOptions,
  ...portOptions,
  retry: Options.integer("retry").pipe(
    Options.withDescription("retry it this many times when it fails (its `retry` key; default 0)"),
    Options.optional,
  ),
  force,
  quiet,
  json,
}
export type RunOptions = Command.Command.ParseConfig<typeof runOptions>
export const waitOptions = { id: Args.text({ name: "id" }), json }
export type WaitOptions = Command.Command.ParseConfig<typeof waitOptions>
