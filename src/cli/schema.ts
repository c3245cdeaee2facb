import { Command } from "@effect/cli"
import { Effect } from "effect"
import { configJsonSchema } from "../config/jsonSchema.js"
import { printJson } from "./output.js"

export const schemaCommand = Command.make("schema", {}, () =>
  Effect.suspend(() => printJson(configJsonSchema())),
).pipe(Command.withDescription("print the JSON Schema of supervisor.toml (for editors)"))
