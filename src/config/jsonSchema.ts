import { JSONSchema } from "effect"
import { ConfigFile } from "../domain/ConfigFile.js"

export const SCHEMA_ID = "https://supervisor.dev/schemas/supervisor.schema.json"

/** The JSON Schema of supervisor.toml / config.toml, for editors (Taplo, Even Better TOML). */
export const configJsonSchema = (): Record<string, unknown> => {
  const schema = JSONSchema.make(ConfigFile) as unknown as Record<string, unknown>
  return {
    $schema: schema.$schema,
    $id: SCHEMA_ID,
    title: "supervisor.toml",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  }
}
