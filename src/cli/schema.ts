import { Command } from "@effect/cli"
import { lazy } from "./lazy.js"

export const schemaCommand = Command.make("schema", {}, () =>
  lazy(
    () => import("./actions/schema.js"),
    (m) => m.schema(),
  ),
).pipe(Command.withDescription("print the JSON Schema of supervisor.toml (for editors)"))
