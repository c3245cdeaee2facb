import { Command } from "@effect/cli"
import { logsOptions } from "./args/logs.js"
import { lazy } from "./lazy.js"

export const logsCommand = Command.make("logs", logsOptions, (o) =>
  lazy(
    () => import("./actions/logs.js"),
    (m) => m.logs(o),
  ),
).pipe(Command.withDescription("show daemon logs; --tail follows them"))
