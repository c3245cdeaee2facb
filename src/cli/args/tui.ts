// The options of `supervisor tui` and their types: what the command (cli/tui.ts)
// parses and its action (actions/tui.ts) receives.

import { type Command, Options } from "@effect/cli"

export const tuiOptions = {
  interval: Options.float("interval").pipe(
    Options.withDescription(
      "seconds between two refreshes of the usage cells (CPU, memory, uptime; 0.1 to 60; default settings.tui.refresh_rate, 5s): states follow the event stream",
    ),
    Options.optional,
  ),
  namespace: Options.text("namespace").pipe(
    Options.withPseudoName("NS"),
    Options.withDescription("only the daemons of this namespace (repeatable: any of them)"),
    Options.repeated,
  ),
  project: Options.text("project").pipe(
    Options.withPseudoName("DIR"),
    Options.withDescription(
      "only the daemons of the project in this directory (its namespaces; --project . for the current one)",
    ),
    Options.optional,
  ),
}
export type TuiOptions = Command.Command.ParseConfig<typeof tuiOptions>
