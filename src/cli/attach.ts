import { Command } from "@effect/cli"
import { attachOptions } from "./args/attach.js"
import { lazy } from "./lazy.js"

/** `supervisor attach ID`: this terminal becomes the daemon's terminal (docs/attach.md). */
export const attachCommand = Command.make("attach", attachOptions, (o) =>
  lazy(
    () => import("./actions/attach.js"),
    (m) => m.attach(o),
  ),
).pipe(
  Command.withDescription(
    "type into a daemon with `pty = true`: its terminal becomes this one until the detach key (Ctrl-]) or its exit",
  ),
)
