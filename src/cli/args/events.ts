// The arguments of `supervisor events` and their types: what the command (cli/events.ts)
// parses and its action (actions/events.ts) receives.

import { Args, type Command, Options } from "@effect/cli"

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
