// The options of `supervisor list` and `supervisor status` and their types: what the command (cli/listing.ts)
// parses and its action (actions/listing.ts) receives.

import { Args, type Command, Options } from "@effect/cli"
import { json } from "../options.js"

export const listOptions = {
  json,
  status: Options.text("status").pipe(
    Options.withDescription("only daemons with this status (repeatable: any of them)"),
    Options.repeated,
  ),
  namespace: Options.text("namespace").pipe(Options.withDescription("only this namespace"), Options.optional),
  hideHeader: Options.boolean("hide-header").pipe(
    Options.withDescription("leave out the table's header row"),
  ),
}
export type ListOptions = Command.Command.ParseConfig<typeof listOptions>

export const statusOptions = { id: Args.text({ name: "id" }), json }
export type StatusOptions = Command.Command.ParseConfig<typeof statusOptions>
