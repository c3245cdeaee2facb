import { Option, ParseResult, type Schema } from "effect"
import * as AST from "effect/SchemaAST"
import { closest } from "../domain/suggest.js"

/** One decoding problem of a config value, ready to become a ConfigProblem. */
export interface ValueIssue {
  readonly kind: "unknown-key" | "invalid"
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  readonly hint?: string
}

// Follows a key path through the schema AST to find the description of the value there.
const descend = (ast: AST.AST, key: PropertyKey): AST.AST | undefined => {
  switch (ast._tag) {
    case "Transformation":
      return descend(ast.from, key)
    case "Refinement":
      return descend(ast.from, key)
    case "Union":
      for (const m of ast.types) {
        const found = descend(m, key)
        if (found) return found
      }
      return undefined
    case "TypeLiteral": {
      const prop = ast.propertySignatures.find((p) => p.name === key)
      if (prop) return prop.type
      return ast.indexSignatures[0]?.type
    }
    case "TupleType":
      return typeof key === "number" ? (ast.rest[0]?.type ?? ast.elements[key]?.type) : undefined
    default:
      return undefined
  }
}
// The encoded side describes the forms a user may write, so it wins over a summary.
const describe = (ast: AST.AST): string | undefined => {
  if (ast._tag === "Transformation") {
    const from = describe(ast.from)
    if (from) return from
  }
  const own = Option.getOrUndefined(AST.getDescriptionAnnotation(ast))
  if (own) return own
  if (ast._tag === "Union") {
    for (const m of ast.types) if (m._tag !== "UndefinedKeyword") return describe(m)
  }
  return undefined
}
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s)
const descriptionAt = (root: AST.AST, path: ReadonlyArray<PropertyKey>): string | undefined => {
  let ast: AST.AST | undefined = root
  for (const key of path) {
    ast = ast && descend(ast, key)
    if (!ast) return undefined
  }
  return describe(ast!)
}
const knownKeys = (message: string): Array<string> => [...message.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)
const isPrefix = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) =>
  a.length < b.length && a.every((k, i) => k === b[i])
const samePath = (a: ReadonlyArray<PropertyKey>, b: ReadonlyArray<PropertyKey>) =>
  a.length === b.length && a.every((k, i) => k === b[i])

/**
 * Turns a ParseError into one clear issue per key: typos become "unknown key"
 * with a suggestion; a value that matches no form of a union gets one message
 * built from the key's description instead of one line per union member.
 */
export const valueIssues = (schema: Schema.Schema.Any, error: ParseResult.ParseError): Array<ValueIssue> => {
  const raw = ParseResult.ArrayFormatter.formatErrorSync(error).filter(
    (i) => !i.message.startsWith("Expected undefined"),
  )
  const leaves = raw.filter((i) => !raw.some((j) => isPrefix(i.path, j.path)))
  const out: Array<ValueIssue> = []
  const seen: Array<ReadonlyArray<PropertyKey>> = []
  for (const issue of leaves) {
    if (seen.some((p) => samePath(p, issue.path))) continue
    seen.push(issue.path)
    const atPath = leaves.filter((j) => samePath(j.path, issue.path))
    if (issue._tag === "Missing") {
      const key = String(issue.path[issue.path.length - 1])
      const description = descriptionAt(schema.ast, issue.path)
      out.push({
        kind: "invalid",
        path: issue.path,
        message: `missing required key ${JSON.stringify(key)}`,
        ...(description !== undefined ? { hint: `add ${key}: ${lowerFirst(description)}` } : {}),
      })
      continue
    }
    if (issue._tag === "Unexpected") {
      const key = String(issue.path[issue.path.length - 1])
      const suggestion = closest(key, knownKeys(issue.message))
      out.push({
        kind: "unknown-key",
        path: issue.path,
        message: `unknown key ${JSON.stringify(key)}`,
        hint:
          suggestion !== undefined
            ? `did you mean "${suggestion}"?`
            : `known keys here: ${knownKeys(issue.message).join(", ")}`,
      })
      continue
    }
    const specific = atPath.filter((j) => j._tag !== "Type")
    if (specific.length > 0) {
      // Effect's own refinement messages start with a capital ("Expected a non-negative number")
      for (const s of specific)
        out.push({ kind: "invalid", path: s.path, message: s.message.replace(/^Expected /, "expected ") })
      continue
    }
    const actual = /, actual (.*)$/s.exec(issue.message)?.[1]
    const description =
      atPath.length > 1 || issue.message.startsWith("Expected {")
        ? descriptionAt(schema.ast, issue.path)
        : undefined
    out.push({
      kind: "invalid",
      path: issue.path,
      message:
        description !== undefined
          ? `invalid value${actual ? ` ${actual}` : ""}; expected ${lowerFirst(description)}`
          : `expected ${lowerFirst(issue.message.replace(/^expected /i, ""))}`,
    })
  }
  return out
}
