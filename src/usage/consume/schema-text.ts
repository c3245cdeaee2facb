/**
 * Output schemas are carried verbatim (any draft, possibly unresolved references), so a
 * consumer cannot assume they parse. These helpers decide once what counts as a usable schema:
 * text that parses as JSON into an object or a boolean (the two forms a JSON Schema can take).
 */

/** A JSON value, as `JSON.parse` produces it. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/** The parsed schema, or `undefined` when the text is not JSON or not an object/boolean. */
export const parseSchema = (text: string): Json | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  return typeof parsed === "boolean" ||
    (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
    ? (parsed as Json)
    : undefined
}

/** The schema pretty-printed when it parses, else `undefined` (callers show the text verbatim). */
export const prettySchema = (text: string): string | undefined => {
  const parsed = parseSchema(text)
  return parsed === undefined ? undefined : JSON.stringify(parsed, null, 2)
}
