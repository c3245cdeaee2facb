// The committed JSON Schema (schemas/supervisor.schema.json, what editors check files with)
// accepts `depends` entries in both forms and rejects what the loader rejects.
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }
type JsonSchema = { readonly [k: string]: Json }

const root = JSON.parse(
  readFileSync(resolve(__dirname, "../../schemas/supervisor.schema.json"), "utf8"),
) as JsonSchema

/** The keywords `depends` uses: $ref, anyOf, type, enum, pattern, required, properties, additionalProperties, items. */
const valid = (schema: JsonSchema, value: Json): boolean => {
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/$defs/", "")
    return valid((root.$defs as Record<string, JsonSchema>)[name]!, value)
  }
  if (Array.isArray(schema.anyOf) && !(schema.anyOf as Array<JsonSchema>).some((s) => valid(s, value)))
    return false
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false
  if (schema.type === "string") {
    if (typeof value !== "string") return false
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value)) return false
  }
  if (schema.type === "array") {
    if (!Array.isArray(value)) return false
    const items = schema.items as JsonSchema | undefined
    if (items && !value.every((v) => valid(items, v))) return false
  }
  if (schema.type === "object") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false
    const o = value as { readonly [k: string]: Json }
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>
    if (Array.isArray(schema.required) && !schema.required.every((k) => typeof k === "string" && k in o))
      return false
    for (const [k, v] of Object.entries(o)) {
      const p = props[k]
      if (p !== undefined) {
        if (!valid(p, v)) return false
      } else if (schema.additionalProperties === false) return false
    }
  }
  return true
}

const depends = (
  (root.$defs as Record<string, JsonSchema>).DaemonOptions!.properties as Record<string, JsonSchema>
).depends!

describe("the JSON Schema of depends", () => {
  it("accepts plain IDs and tables with a condition", () => {
    expect(
      valid(depends, [
        "db",
        "global/redis",
        { id: "migrate", condition: "completed" },
        { id: "other/migrate", condition: "started" },
        { id: "cache", condition: "ready" },
        { id: "queue" },
      ]),
    ).toBe(true)
  })

  it.each([
    ["an unknown condition", { id: "migrate", condition: "done" }],
    ["an unknown key", { id: "migrate", conditon: "completed" }],
    ["a table without an id", { condition: "completed" }],
    ["a malformed ID", { id: "a//b" }],
  ])("rejects %s", (_, entry) => {
    expect(valid(depends, [entry as Json])).toBe(false)
  })
})
