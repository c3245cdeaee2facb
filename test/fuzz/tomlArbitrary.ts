// Values of the configuration generated from its JSON Schema (schemas/supervisor.schema.json):
// every key and type the schema declares, so a key added to the schema is fuzzed without a change here.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"

type Node = Record<string, unknown>
const SCHEMA = JSON.parse(readFileSync(join(__dirname, "../../schemas/supervisor.schema.json"), "utf8")) as {
  $defs: Record<string, Node>
}

const NAME = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}(-[a-z0-9]{1,3})?$/)
const num = (v: unknown, d: number) => (typeof v === "number" ? v : d)

/** A value the schema node describes (patterns and bounds honoured; depth bounded). */
export const fromSchema = (node: Node, depth = 0): fc.Arbitrary<unknown> => {
  if (typeof node.$ref === "string") return fromSchema(SCHEMA.$defs[node.$ref.split("/").pop()!]!, depth)
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as Array<unknown>))
  for (const k of ["anyOf", "oneOf"] as const)
    if (Array.isArray(node[k])) return fc.oneof(...(node[k] as Array<Node>).map((n) => fromSchema(n, depth)))
  if (Array.isArray(node.allOf)) return fromSchema((node.allOf as Array<Node>)[0]!, depth)
  switch (node.type) {
    case "string":
      if (Array.isArray(node.examples)) return fc.constantFrom(...(node.examples as Array<string>))
      if (typeof node.pattern === "string")
        return fc.stringMatching(new RegExp(node.pattern)).filter((s) => s.length < 60)
      return fc.string({ minLength: num(node.minLength, 0), maxLength: 12 })
    case "integer":
      return fc.integer({ min: num(node.minimum, -1000), max: num(node.maximum, 100_000) })
    case "number":
      return fc.double({
        min: num(node.minimum, -1000),
        max: num(node.maximum, 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      })
    case "boolean":
      return fc.boolean()
    case "array":
      return depth > 3
        ? fc.constant([])
        : fc.array(fromSchema(node.items as Node, depth + 1), { maxLength: 3 })
    case "object": {
      if (depth > 3) return fc.constant({})
      const props = (node.properties ?? {}) as Record<string, Node>
      const known = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, depth + 1)])),
        { requiredKeys: (node.required as Array<string> | undefined) ?? [] },
      )
      const extra =
        typeof node.additionalProperties === "object"
          ? fc.dictionary(NAME, fromSchema(node.additionalProperties as Node, depth + 1), { maxKeys: 3 })
          : fc.constant({})
      return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }))
    }
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean())
  }
}

/** A project's configuration table: daemons, groups and settings of the schema's shapes. */
export const configValue: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    daemons: fc.dictionary(NAME, fromSchema({ $ref: "#/$defs/DaemonOptions" }), { minKeys: 1, maxKeys: 4 }),
    groups: fc.dictionary(NAME, fromSchema({ $ref: "#/$defs/Group" }), { maxKeys: 2 }),
    settings: fromSchema((SCHEMA.$defs.SupervisorConfig!.properties as Record<string, Node>).settings!),
  },
  { requiredKeys: ["daemons"] },
)

/** Any TOML-able value of the wrong type, or a huge one. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.double(),
  fc.boolean(),
  fc.date({ noInvalidDate: true }),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 3 }),
  fc.constantFrom(
    "x".repeat(200_000),
    2 ** 53 + 1,
    Number.MAX_VALUE,
    -0,
    Number.POSITIVE_INFINITY,
    Number.NaN,
  ),
)

/** Sets `value` at a path chosen by `pick` among the table's tables (a new key, or one replaced). */
export const mutate = (
  table: Record<string, unknown>,
  picks: ReadonlyArray<number>,
  key: string | undefined,
  value: unknown,
): Record<string, unknown> => {
  const copy = structuredClone(table)
  let at: Record<string, unknown> = copy
  for (const p of picks) {
    const keys = Object.keys(at)
    const k = keys[p % Math.max(keys.length, 1)]
    const next = k === undefined ? undefined : at[k]
    if (typeof next !== "object" || next === null || Array.isArray(next) || next instanceof Date) {
      if (key === undefined && k !== undefined) at[k] = value
      break
    }
    at = next as Record<string, unknown>
  }
  // defined, not assigned: `__proto__` is a key like any other in TOML
  if (key !== undefined)
    Object.defineProperty(at, key, { value, enumerable: true, writable: true, configurable: true })
  return copy
}
