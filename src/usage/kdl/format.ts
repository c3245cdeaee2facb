import { isIdentifierChar, KEYWORDS } from "./chars.js"
import type { KdlValue } from "./literals.js"

/**
 * KDL 2 text for values and nodes: how the writer and the kept (passed-through) nodes are
 * printed. Strings are always quoted, so a value reads back as the same string whatever it is.
 */

const NAMED: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  '"': '\\"',
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
}

/** Code points KDL 2 forbids literally in strings, and newlines other than `\n`. */
const NEEDS_ESCAPE = /[\\"\x00-\x1F\x7F\x85\u2028\u2029\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g

export const quoted = (text: string): string =>
  `"${text.replace(NEEDS_ESCAPE, (c) => NAMED[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`)}"`

/** A node or property name: bare when KDL 2 reads it back as the same identifier, else quoted. */
export const kdlName = (name: string): string => {
  const bare =
    name !== "" &&
    !KEYWORDS.has(name) &&
    !/^[+-]?\.?\d/.test(name) &&
    [...name].every((ch) => isIdentifierChar(ch.codePointAt(0) ?? 0))
  return bare ? name : quoted(name)
}

export const formatNumber = (n: number): string => {
  if (Number.isNaN(n)) return "#nan"
  if (n === Number.POSITIVE_INFINITY) return "#inf"
  if (n === Number.NEGATIVE_INFINITY) return "#-inf"
  return String(n)
}

export const formatValue = (v: KdlValue): string =>
  v === null
    ? "#null"
    : typeof v === "boolean"
      ? `#${v}`
      : typeof v === "number"
        ? formatNumber(v)
        : quoted(v)

/** The parts of a node this formatter needs (the parser's nodes and the writer's alike). */
export interface FormattableNode {
  readonly name: string
  readonly values: ReadonlyArray<KdlValue>
  readonly properties: Readonly<Record<string, KdlValue>>
  readonly children: ReadonlyArray<FormattableNode>
}

/** A node as lines of KDL, children indented by two spaces per level. */
export const formatNode = (node: FormattableNode, indent = ""): Array<string> => {
  const head = [
    kdlName(node.name),
    ...node.values.map(formatValue),
    ...Object.entries(node.properties).map(([k, v]) => `${kdlName(k)}=${formatValue(v)}`),
  ].join(" ")
  if (node.children.length === 0) return [`${indent}${head}`]
  return [`${indent}${head} {`, ...node.children.flatMap((c) => formatNode(c, `${indent}  `)), `${indent}}`]
}
