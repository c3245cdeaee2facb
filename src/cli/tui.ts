import { Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"

export const tuiOptions = {
  interval: Options.float("interval").pipe(
    Options.withDescription("seconds between two refreshes of the daemon table (0.1 to 60)"),
    Options.withDefault(1),
  ),
}
export type TuiOptions = Command.Command.ParseConfig<typeof tuiOptions>

/** `supervisor tui`: the terminal dashboard (docs/tui.md). */
export const tuiCommand = Command.make("tui", tuiOptions, (o) =>
  lazy(
    () => import("./actions/tui.js"),
    (m) => m.tui(o),
  ),
).pipe(
  Command.withDescription(
    "a terminal dashboard: the daemon table, keys to start, stop, restart, enable and disable, the selected daemon's log",
  ),
)
