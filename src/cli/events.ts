import { Args, Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"

export const eventsOptions = {
  ids: Args.text({ name: "id" }).pipe(
    Args.withDescription("only these daemons' events (and the supervisor's own); default: every daemon"),
    Args.repeated,
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription("one JSON object per line (an EventStreamItem)"),
  ),
  since: Options.integer("since").pipe(
    Options.withDescription("first the retained events after this seq (0: all retained), then the new ones"),
    Options.optional,
  ),
}
export type EventsOptions = Command.Command.ParseConfig<typeof eventsOptions>

/** `supervisor events`: follows the supervisor's event stream (docs/events.md). */
export const eventsCommand = Command.make("events", eventsOptions, (o) =>
  lazy(
    () => import("./actions/events.js"),
    (m) => m.events(o),
  ),
).pipe(
  Command.withDescription(
    "follow the supervisor's events: state changes, readiness, retries, automation, configuration",
  ),
)
