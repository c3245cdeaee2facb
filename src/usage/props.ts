import { Either, ParseResult, Schema } from "effect"
import { Framing } from "./model.js"

/**
 * The properties (`key=value`) each interpreted node accepts, as Schema structs. Decoding with
 * `onExcessProperty: "error"` turns a misspelt property into an error instead of a silently
 * ignored one; each field's `message` annotation words the error the way a spec author reads it.
 */

type KdlValue = string | number | boolean | null

/** A KDL value as written: `"x"`, `12`, `#true`, `#null`. */
export const showKdlValue = (v: unknown): string =>
  v === null
    ? "#null"
    : typeof v === "boolean"
      ? `#${v}`
      : typeof v === "string"
        ? JSON.stringify(v)
        : String(v)

const str = (key: string) =>
  Schema.String.annotations({ message: (i) => `${key} must be a string, got ${showKdlValue(i.actual)}` })

const bool = (key: string) =>
  Schema.Boolean.annotations({
    message: (i) => `${key} must be #true or #false, got ${showKdlValue(i.actual)}`,
  })

const optBool = (key: string) => Schema.optionalWith(bool(key), { default: () => false })

/** A filter (not `Schema.Literal`) so that the message names the values once. */
const FramingProp = Schema.String.pipe(
  Schema.filter(Schema.is(Framing), {
    message: (i) => `framing ${showKdlValue(i.actual)} is not one of ${Framing.literals.join(", ")}`,
  }),
)

/** A flag default as written: strings stay, numbers and booleans become their text. */
const DefaultValue = Schema.transform(
  Schema.Union(Schema.String, Schema.Number, Schema.Boolean).annotations({
    message: (i) => `default must be a string, a number or a boolean, got ${showKdlValue(i.actual)}`,
  }),
  Schema.String,
  { strict: true, decode: (v) => String(v), encode: (s) => s },
)

export const OutputProps = Schema.Struct({
  media_type: Schema.optional(str("media_type")),
  framing: Schema.optionalWith(FramingProp, { default: (): Framing => "text" }),
  help: Schema.optional(str("help")),
  default: optBool("default"),
  hide: optBool("hide"),
  select: Schema.optional(str("select")),
})

export const SchemaProps = Schema.Struct({ file: Schema.optional(str("file")) })
export const IncludeProps = Schema.Struct({ file: Schema.optional(str("file")) })
export const NoProps = Schema.Struct({})

export const FlagProps = Schema.Struct({
  help: Schema.optional(str("help")),
  global: optBool("global"),
  hide: optBool("hide"),
  var: optBool("var"),
  default: Schema.optional(DefaultValue),
})

export const ArgProps = Schema.Struct({
  help: Schema.optional(str("help")),
  var: optBool("var"),
})

export const CmdProps = Schema.Struct({
  help: Schema.optional(str("help")),
  long_help: Schema.optional(str("long_help")),
  hide: optBool("hide"),
})

export const ExampleProps = Schema.Struct({
  header: Schema.optional(str("header")),
  help: Schema.optional(str("help")),
})

export const ChoiceProps = Schema.Struct({ help: Schema.optional(str("help")) })

/**
 * Decodes a node's properties. Every issue becomes one message (the first per property: with
 * `errors: "all"` an `optionalWith` field adds a second, spurious "Expected undefined" entry).
 * The properties in error are then dropped and the rest decoded again, so the node still takes
 * part in later checks with defaults in place of its bad values (one mistake, one error).
 */
export const decodeProps = <A, I>(
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields },
  properties: Readonly<Record<string, KdlValue>>,
  report: (message: string) => void,
): A => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
  const first = decode(properties)
  if (Either.isRight(first)) return first.right
  const known = Object.keys(schema.fields)
  const bad = new Set<string>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(first.left)) {
    const key = String(issue.path[0] ?? "")
    if (bad.has(key)) continue
    bad.add(key)
    report(
      issue._tag === "Unexpected"
        ? `unknown property ${key}=${showKdlValue(properties[key])} (${
            known.length === 0 ? "it takes none" : `known: ${known.join(", ")}`
          })`
        : issue.message,
    )
  }
  const rest = Object.fromEntries(Object.entries(properties).filter(([k]) => !bad.has(k)))
  return Either.getOrElse(decode(rest), () => Schema.decodeUnknownSync(schema)({}))
}
