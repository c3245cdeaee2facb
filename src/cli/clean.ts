import { Command } from "@effect/cli"
import { cleanOptions } from "./args/clean.js"
import { lazy } from "./lazy.js"

export const cleanCommand = Command.make("clean", cleanOptions, (o) =>
  lazy(
    () => import("./actions/clean.js"),
    (m) => m.clean(o),
  ),
).pipe(Command.withDescription("forget this project's daemons that are not running (and their logs)"))
