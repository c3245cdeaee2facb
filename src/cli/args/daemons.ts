// The options of `supervisor start`, `stop`, `restart`, `enable` and `disable`, and their types:
// what the commands (cli/daemons.ts) parse and their action (actions/daemons.ts) receives.

import { type Command, Options } from "@effect/cli"
import { all, force, global, group, ids, json, local, quiet, readyOptions } from "../options.js"
import { portOptions } from "../portFlags.js"

export const startOptions = {
  ids,
  all,
  group,
  local,
  global,
  force,
  quiet,
  json,
  ...readyOptions,
  ...portOptions,
  timings: Options.boolean("timings").pipe(
    Options.withDescription(
      "then print, on stderr, how long each daemon waited for its dependencies, to spawn and to be ready, and the critical chain",
    ),
  ),
}
export type StartOptions = Command.Command.ParseConfig<typeof startOptions>
export const stopOptions = { ids, all, group, local, global, quiet, json }
export type StopOptions = Command.Command.ParseConfig<typeof stopOptions>
export const restartOptions = { ...stopOptions, ...readyOptions }
export type RestartOptions = Command.Command.ParseConfig<typeof restartOptions>
export const toggleOptions = { ids, json }
export type ToggleOptions = Command.Command.ParseConfig<typeof toggleOptions>
