import { Args, Options } from "@effect/cli"

export const json = Options.boolean("json").pipe(Options.withDescription("print machine-readable JSON"))
export const ids = Args.text({ name: "id" }).pipe(
  Args.withDescription("daemon IDs: short names or namespace/name"),
  Args.repeated,
)
export const all = Options.boolean("all").pipe(
  Options.withAlias("a"),
  Options.withDescription("every daemon"),
)
export const group = Options.text("group").pipe(
  Options.withAlias("g"),
  Options.withDescription("the daemons of a group"),
  Options.optional,
)
export const force = Options.boolean("force").pipe(
  Options.withAlias("f"),
  Options.withDescription("restart it if it is running"),
)
export const quiet = Options.boolean("quiet").pipe(
  Options.withAlias("q"),
  Options.withDescription("print nothing on success"),
)
