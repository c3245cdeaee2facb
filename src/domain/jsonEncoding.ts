import { Schema } from "effect"
import type * as AST from "effect/SchemaAST"

/**
 * Whether encoding with a schema is the identity: no transformation and no declaration (class)
 * anywhere in it, only structs, arrays, unions, literals and refinements of plain values. Such a
 * schema's encoded form of a value of its type is the value itself.
 */
export const encodesAsItself = (ast: AST.AST): boolean => {
  switch (ast._tag) {
    case "Transformation":
    case "Declaration":
    case "Suspend": // recursive: not worth walking, the general path handles it
      return false
    case "Refinement":
      return encodesAsItself(ast.from)
    case "Union":
      return ast.types.every(encodesAsItself)
    case "TypeLiteral":
      return (
        ast.propertySignatures.every((p) => encodesAsItself(p.type)) &&
        ast.indexSignatures.every((i) => encodesAsItself(i.type))
      )
    case "TupleType":
      return (
        ast.elements.every((e) => encodesAsItself(e.type)) && ast.rest.every((r) => encodesAsItself(r.type))
      )
    default:
      return true
  }
}

/**
 * The JSON text of values through `schema`: `Schema.encodeSync` then `JSON.stringify` (`indent`
 * spaces, none by default). A schema whose encoding is the identity (`encodesAsItself`) skips the
 * encode call and its re-validation of what the type checker already checked: per log line it
 * made writing a million of them 2-3 times as slow (bench/json-encoding.mjs). Such a value is then
 * printed as it is: its producers build it with exactly the schema's fields.
 */
export const jsonEncoder = <A, I>(schema: Schema.Schema<A, I>, indent?: number): ((value: A) => string) => {
  if (encodesAsItself(schema.ast)) return (value) => JSON.stringify(value, null, indent)
  const encode = Schema.encodeSync(schema)
  return (value) => JSON.stringify(encode(value), null, indent)
}
