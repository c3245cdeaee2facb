import { Command } from "@effect/cli"
import { Effect } from "effect"
import { runOptions, waitOptions } from "./args/adhoc.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/adhoc.js")

/** `run` without its command: checks the ID and the flags before `--` (src/cli/runArgs.ts). */
export const runFlagsCommand = Command.make(
  "run",
  (({ command: _command, ...flags }) => flags)(runOptions),
  () => Effect.void,
)
export const runCommand = Command.make("run", runOptions, (o) => lazy(load, (m) => m.run(o))).pipe(
  Command.withDescription("run an ad-hoc daemon that is in no config file: supervisor run ID -- CMD..."),
)

export const waitCommand = Command.make("wait", waitOptions, (o) => lazy(load, (m) => m.wait(o))).pipe(
  Command.withDescription("wait until a daemon exits; exits with the daemon's exit code"),
)
