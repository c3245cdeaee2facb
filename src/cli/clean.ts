import { Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"
import { ids, json } from "./options.js"

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

export const cleanCommand = Command.make("clean", cleanOptions, (o) =>
  lazy(
    () => import("./actions/clean.js"),
    (m) => m.clean(o),
  ),
).pipe(Command.withDescription("forget this project's daemons that are not running (and their logs)"))
