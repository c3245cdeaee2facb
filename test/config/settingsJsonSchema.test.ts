// The JSON Schema for editors gives every setting's default, durations included (their Schema is
// a transformation, whose default annotation must be the decoded value to be encoded there).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { configJsonSchema } from "../../src/config/jsonSchema.js"
import { settingInfos } from "../../src/config/settingsInfo.js"

type Json = Record<string, unknown>

/** Follows `$ref` (and a lone `allOf`) to the schema that describes the value. */
const resolve = (root: Json, node: Json): Json => {
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace("#/$defs/", "")
    return resolve(root, (root.$defs as Record<string, Json>)[name]!)
  }
  if (Array.isArray(node.allOf) && node.allOf.length === 1 && node.properties === undefined)
    return resolve(root, node.allOf[0] as Json)
  return node
}

/** The JSON Schema property of `settings.GROUP.NAME`. */
const property = (root: Json, group: string, name: string): Json | undefined => {
  const config = resolve(root, root)
  const settings = resolve(root, (config.properties as Record<string, Json>).settings!)
  const groupSchema = resolve(root, (settings.properties as Record<string, Json>)[group]!)
  return (groupSchema.properties as Record<string, Json> | undefined)?.[name]
}

const committed = JSON.parse(
  readFileSync(join(__dirname, "../../schemas/supervisor.schema.json"), "utf8"),
) as Json

describe("the JSON Schema's settings", () => {
  it.each([
    ["made now", configJsonSchema()],
    ["committed (schemas/)", committed],
  ])("%s: every setting with a default has it, as a file writes it", (_, root) => {
    const withDefault = settingInfos().filter((s) => s.default !== undefined)
    expect(withDefault.map((s) => s.key)).toContain("general.interval")
    for (const s of withDefault) expect(property(root, s.group, s.name)?.default, s.key).toEqual(s.default)
    expect(property(root, "general", "autostop_delay")?.default).toBe("1m")
  })
})
