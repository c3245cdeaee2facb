// The options of `supervisor start`, `stop`, `restart`, `enable` and `disable`, and their types:
// what the commands (cli/daemons.ts) parse and their action (actions/daemons.ts) receives.

import type { Command } from "@effect/cli"
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
}
export type StartOptions = Command.Command.ParseConfig<typeof startOptions>
export const stopOptions = { ids, all, group, local, global, quiet, json }
export type StopOptions = Command.Command.ParseConfig<typeof stopOptions>
export const restartOptions = { ...stopOptions, ...readyOptions }
export type RestartOptions = Command.Command.ParseConfig<typeof restartOptions>
export const toggleOptions = { ids, json }
export type ToggleOptions = Command.Command.ParseConfig<typeof toggleOptions>
