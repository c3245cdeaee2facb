import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { lazy } from "./lazy.js"
import { force, json, readyOptions } from "./options.js"

const load = () => import("./actions/adhoc.js")

/** The readiness flags, with pitchfork's short `run -d` and `run -o`. */
const runReadyOptions = {
  ...readyOptions,
  delay: readyOptions.delay.pipe(Options.withAlias("d")),
  output: readyOptions.output.pipe(Options.withAlias("o")),
}

export const runOptions = {
  id: Args.text({ name: "id" }),
  command: Args.text({ name: "command" }).pipe(Args.repeated),
  ...runReadyOptions,
  force,
  json,
}
export type RunOptions = Command.Command.ParseConfig<typeof runOptions>
/** `run` without its command: checks the ID and the flags before `--` (src/cli/runArgs.ts). */
export const runFlagsCommand = Command.make(
  "run",
  { id: runOptions.id, ...runReadyOptions, force, json },
  () => Effect.void,
)
export const waitOptions = { id: Args.text({ name: "id" }), json }
export type WaitOptions = Command.Command.ParseConfig<typeof waitOptions>

export const runCommand = Command.make("run", runOptions, (o) => lazy(load, (m) => m.run(o))).pipe(
  Command.withDescription("run an ad-hoc daemon that is in no config file: supervisor run ID -- CMD..."),
)

export const waitCommand = Command.make("wait", waitOptions, (o) => lazy(load, (m) => m.wait(o))).pipe(
  Command.withDescription("wait until a daemon exits; exits with the daemon's exit code"),
)
