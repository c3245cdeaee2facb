// pitchfork's flat `[settings]` form (`[settings] interval = "1s"`): a key directly under
// `[settings]` that names exactly one setting is read as that setting, with a warning that shows
// its table (src/config/pitchforkForms.ts). Names that several tables share (`auto_start`,
// `bind_port`, ...) have no flat form: which one is meant cannot be told.
import { Option, Schema } from "effect"
import * as AST from "effect/SchemaAST"
import { type SettingGroup, settingGroups } from "./Settings.js"

type Fields = Record<string, Schema.Schema.All | Schema.PropertySignature.All>

/** The value's schema of a settings field, as a file writes it (without its default). */
const valueSchema = (field: Schema.Schema.All | Schema.PropertySignature.All): Schema.Schema<unknown> => {
  if (!Schema.isPropertySignature(field)) return field as Schema.Schema<unknown>
  const ast = field.ast
  const type: AST.AST = ast._tag === "PropertySignatureTransformation" ? ast.from.type : ast.type
  // an optional key's `T | undefined`, without the undefined
  const value = type._tag === "Union" ? (type.types.find((t) => t._tag !== "UndefinedKeyword") ?? type) : type
  return Schema.make(value)
}

const owners = new Map<string, Array<SettingGroup>>()
for (const [group, schema] of Object.entries(settingGroups))
  for (const key of Object.keys(schema.fields))
    owners.set(key, [...(owners.get(key) ?? []), group as SettingGroup])

/** Each flat name and the one table it belongs to. */
export const FLAT_SETTINGS: Readonly<Record<string, SettingGroup>> = Object.fromEntries(
  [...owners].flatMap(([key, groups]) =>
    groups.length === 1 && !(key in settingGroups) ? [[key, groups[0]!]] : [],
  ),
)

/** The setting's own description first: a bad value's message reads "expected <it>". */
const flatField = (value: Schema.Schema<unknown>, group: string, key: string) =>
  value.annotations({
    description: `${Option.getOrElse(AST.getDescriptionAnnotation(value.ast), () => `the value of settings.${group}.${key}`)} (deprecated: pitchfork's flat form of settings.${group}.${key}; write it in [settings.${group}])`,
  })

/** The flat keys as optional fields of `[settings]`, each checked as its setting is. */
export const flatSettingFields = Object.fromEntries(
  Object.entries(FLAT_SETTINGS).map(([key, group]) => [
    key,
    Schema.optional(flatField(valueSchema((settingGroups[group].fields as Fields)[key]!), group, key)),
  ]),
)
