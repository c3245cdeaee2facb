import { Effect } from "effect"
import { configJsonSchema } from "../../config/jsonSchema.js"
import { JsonSchemaDocument } from "../../domain/CliOutput.js"
import { printJson } from "../output.js"

/** `supervisor schema`: the JSON Schema of supervisor.toml. */
export const schema = () => Effect.suspend(() => printJson(JsonSchemaDocument, configJsonSchema()))
