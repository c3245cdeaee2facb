// What each setting is, read from the one settings Schema (src/domain/Settings.ts): its type,
// default, description and environment variable. `settings list`, `supervisor settings` and
// docs/settings.md are made from it, so a new setting needs no other code.
import { Option, ParseResult, Schema } from "effect"
import * as AST from "effect/SchemaAST"
import { type SettingGroup, settingEnvVar, settingGroups } from "../domain/Settings.js"

export interface SettingInfo {
  /** `group.key`, as `settings get` takes it. */
  readonly key: string
  readonly group: SettingGroup
  readonly name: string
  /** In words: duration, boolean, integer, string, one of text|json, table. */
  readonly type: string
  /** The default as a file writes it; none for a setting that is unset by default. */
  readonly default: unknown
  readonly description: string
  readonly env: string
}

/** The value's own schema: an optional key's `T | undefined` without the undefined. */
const valueAst = (ast: AST.AST): AST.AST => {
  if (ast._tag !== "Union") return ast
  const members = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
  return members.length === 1 ? members[0]! : ast
}

const annotation = <A>(ast: AST.AST, get: (ast: AST.AST) => Option.Option<A>): A | undefined => {
  for (let a: AST.AST | undefined = ast; a !== undefined; ) {
    const found = get(a)
    if (Option.isSome(found)) return found.value
    a = a._tag === "Refinement" || a._tag === "Transformation" ? a.from : undefined
  }
  return undefined
}

/** The default annotation (a decoded value) as a file writes it. */
const encodedDefault = (ast: AST.AST): unknown => {
  for (let a: AST.AST | undefined = ast; a !== undefined; ) {
    const found = AST.getDefaultAnnotation(a)
    if (Option.isSome(found))
      return Option.getOrUndefined(ParseResult.encodeOption(Schema.make(a))(found.value))
    a = a._tag === "Refinement" || a._tag === "Transformation" ? a.from : undefined
  }
  return undefined
}

/** The type in words, from the encoded side (what a file writes). */
export const typeName = (ast: AST.AST): string => {
  const id = Option.getOrUndefined(AST.getIdentifierAnnotation(ast))
  if (id === "HumanDuration") return "duration"
  switch (ast._tag) {
    case "BooleanKeyword":
      return "boolean"
    case "StringKeyword":
      return "string"
    case "NumberKeyword":
      return "number"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "TypeLiteral":
      return "table"
    case "Refinement": {
      const base = typeName(ast.from)
      // Schema.Int and its kin (NonNegativeInt, ...) are named so: a refinement of them stays one
      const id = Option.getOrUndefined(AST.getIdentifierAnnotation(ast)) ?? ""
      return base === "number" && /Int$/.test(id) ? "integer" : base
    }
    case "Transformation":
      return typeName(ast.from)
    case "Union": {
      const members = ast.types.filter((t) => t._tag !== "UndefinedKeyword")
      if (members.every((m) => m._tag === "Literal"))
        return `one of ${members.map((m) => String((m as AST.Literal).literal)).join("|")}`
      return [...new Set(members.map(typeName))].join(" or ")
    }
    default:
      return "value"
  }
}

const infos = (): ReadonlyArray<SettingInfo> =>
  Object.entries(settingGroups).flatMap(([group, schema]) =>
    Object.entries(schema.fields).map(([name, field]): SettingInfo => {
      // a bare schema (no optional wrapper) is its own value
      const signature = Schema.isPropertySignature(field) ? field.ast : undefined
      const ast = valueAst(
        signature === undefined
          ? (field as Schema.Schema.Any).ast
          : signature._tag === "PropertySignatureTransformation"
            ? signature.from.type
            : signature.type,
      )
      return {
        key: `${group}.${name}`,
        group: group as SettingGroup,
        name,
        type: typeName(ast),
        default: encodedDefault(ast),
        description: annotation(ast, AST.getDescriptionAnnotation) ?? "",
        env: settingEnvVar(group, name),
      }
    }),
  )

let cached: ReadonlyArray<SettingInfo> | undefined

/** Every setting, in the Schema's order. */
export const settingInfos = (): ReadonlyArray<SettingInfo> => {
  cached ??= infos()
  return cached
}

/** The setting `key` names (`web.bind_port` or `settings.web.bind_port`), if any. */
export const findSetting = (key: string): SettingInfo | undefined => {
  const short = key.startsWith("settings.") ? key.slice("settings.".length) : key
  return settingInfos().find((s) => s.key === short)
}
