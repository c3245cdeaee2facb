import { Command } from "@effect/cli"
import { tuiOptions } from "./args/tui.js"
import { lazy } from "./lazy.js"

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
