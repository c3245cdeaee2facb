import { Args, Command } from "@effect/cli"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

const show = Command.make("show", { json }, ({ json }) =>
  lazy(
    () => import("./actions/config.js"),
    (m) => m.show(json),
  ),
).pipe(Command.withDescription("print the merged configuration of the current directory"))

const validate = Command.make("validate", { json }, ({ json }) =>
  lazy(
    () => import("./actions/config.js"),
    (m) => m.validate(json),
  ),
).pipe(Command.withDescription("check every configuration file; exit 1 and list every problem if any"))

const get = Command.make(
  "get",
  {
    key: Args.text({ name: "key" }).pipe(
      Args.withDescription("a setting's key as a file writes it: settings.web.port (or web.port)"),
    ),
  },
  ({ key }) =>
    lazy(
      () => import("./actions/configGet.js"),
      (m) => m.get(key),
    ),
).pipe(
  Command.withDescription("print the effective value of one setting (files, then SUPERVISOR_* variables)"),
)

export const configCommand = Command.make("config").pipe(
  Command.withDescription("inspect and validate the configuration"),
  Command.withSubcommands([show, validate, get]),
)
