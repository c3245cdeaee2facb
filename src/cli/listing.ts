import { Args, Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

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

export const listCommand = Command.make("list", listOptions, (o) =>
  lazy(
    () => import("./actions/listing.js"),
    (m) => m.list(o),
  ),
).pipe(Command.withDescription("list daemons with their status"))

export const statusOptions = { id: Args.text({ name: "id" }), json }
export type StatusOptions = Command.Command.ParseConfig<typeof statusOptions>

export const statusCommand = Command.make("status", statusOptions, (o) =>
  lazy(
    () => import("./actions/listing.js"),
    (m) => m.status(o),
  ),
).pipe(Command.withDescription("show one daemon's status"))
