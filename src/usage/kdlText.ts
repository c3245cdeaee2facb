import { quoted } from "./kdl/format.js"

/**
 * KDL 2 string literals for the writer. Ordinary text is a quoted string with escapes; schema
 * text (JSON, full of quotes) is a raw string, multi-line when it has newlines, so a generated
 * spec shows the schema as it was written. Text a raw string cannot carry exactly falls back to
 * the quoted form.
 */

export { quoted } from "./kdl/format.js"

/** Characters that cannot appear in a raw string, or would be read back as another newline. */
const NOT_RAW = /[\x00-\x08\x0B-\x1F\x7F\x85\u2028\u2029\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/

const hashesFor = (text: string, closer: string): string => {
  let hashes = "#"
  while (text.includes(closer + hashes)) hashes += "#"
  return hashes
}

/**
 * A schema (or any long text) as KDL: quoted when it has no quote or backslash, else a raw
 * string `#"..."#`, or a multi-line raw string indented to `indent` when it has newlines.
 * Multi-line strings drop whitespace-only lines' content, so text with such a line is quoted.
 */
export const textLiteral = (text: string, indent: string): string => {
  if (!/["\\]/.test(text) || NOT_RAW.test(text)) return quoted(text)
  if (!text.includes("\n")) {
    const h = hashesFor(text, '"')
    return `${h}"${text}"${h}`
  }
  const lines = text.split("\n")
  if (lines.some((l) => l !== "" && l.trim() === "")) return quoted(text)
  const h = hashesFor(text, '"""')
  const body = lines.map((l) => (l === "" ? "" : indent + l)).join("\n")
  return `${h}"""\n${body}\n${indent}"""${h}`
}

/** A property or argument value. */
export const kdlValue = (v: string | number | boolean): string =>
  typeof v === "string" ? quoted(v) : typeof v === "boolean" ? `#${v}` : String(v)

/** ` key=value` for each defined entry, in the given order; booleans only when true. */
export const kdlProps = (
  props: ReadonlyArray<readonly [string, string | number | boolean | undefined]>,
): string =>
  props
    .filter((p): p is readonly [string, string | number | boolean] => p[1] !== undefined && p[1] !== false)
    .map(([k, v]) => ` ${k}=${kdlValue(v)}`)
    .join("")
