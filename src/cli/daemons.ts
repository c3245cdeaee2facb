import { Command } from "@effect/cli"
import { restartOptions, startOptions, stopOptions, toggleOptions } from "./args/daemons.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/daemons.js")

export const startCommand = Command.make("start", startOptions, (o) => lazy(load, (m) => m.start(o))).pipe(
  Command.withDescription("start daemons and wait until they are ready"),
)

export const stopCommand = Command.make("stop", stopOptions, (o) => lazy(load, (m) => m.stop(o))).pipe(
  Command.withDescription("stop daemons (their whole process group)"),
)

export const restartCommand = Command.make("restart", restartOptions, (o) =>
  lazy(load, (m) => m.restart(o)),
).pipe(Command.withDescription("restart daemons and wait until they are ready"))

export const enableCommand = Command.make("enable", toggleOptions, (o) =>
  lazy(load, (m) => m.toggle("enable", o)),
).pipe(Command.withDescription("allow daemons to be started again"))

export const disableCommand = Command.make("disable", toggleOptions, (o) =>
  lazy(load, (m) => m.toggle("disable", o)),
).pipe(Command.withDescription("refuse to start daemons (a running one keeps running)"))
