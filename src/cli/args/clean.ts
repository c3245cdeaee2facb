// The options of `supervisor clean` and their types: what the command (cli/clean.ts)
// parses and its action (actions/clean.ts) receives.

import { type Command, Options } from "@effect/cli"
import { ids, json } from "../options.js"

export const cleanOptions = {
  ids,
  allProjects: Options.boolean("all-projects").pipe(
    Options.withDescription(
      "the stopped daemons of every project and every ad-hoc one, not only this project's",
    ),
  ),
  yes: Options.boolean("yes").pipe(
    Options.withAlias("y"),
    Options.withDescription("do not ask for confirmation on a terminal"),
  ),
  json,
}
export type CleanOptions = Command.Command.ParseConfig<typeof cleanOptions>
