// The options of `supervisor tui` and their types: what the command (cli/tui.ts)
// parses and its action (actions/tui.ts) receives.

import { type Command, Options } from "@effect/cli"

export const tuiOptions = {
  interval: Options.float("interval").pipe(
    Options.withDescription("seconds between two refreshes of the daemon table (0.1 to 60)"),
    Options.withDefault(1),
  ),
}
export type TuiOptions = Command.Command.ParseConfig<typeof tuiOptions>
