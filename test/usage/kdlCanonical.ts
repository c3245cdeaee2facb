import { formatNumber, kdlName } from "../../src/usage/kdl/format.js"
import type { KdlValue } from "../../src/usage/kdl/literals.js"
import type { KdlDocNode, KdlEntryDetail } from "../../src/usage/kdl/parse.js"

/**
 * The canonical printing of the KDL test suite (kdl-test-cases/README.md, "Translation Rules"):
 * no comments, 4-space indents, properties sorted with the last of a repeated key, strings
 * quoted only when they must be, numbers in decimal with `E` exponents, children only when
 * there are some. Needs a parse with `{ detail: true }` (type annotations, numbers as written).
 */
export const canonicalKdl = (nodes: ReadonlyArray<KdlDocNode>): string =>
  `${nodes.flatMap((n) => canonicalNode(n, "")).join("\n")}\n`

const canonicalNode = (node: KdlDocNode, indent: string): Array<string> => {
  const detail = node.detail
  if (detail === undefined) throw new Error("parse with { detail: true }")
  const head = [
    `${typePrefix(detail.type)}${kdlName(node.name)}`,
    ...node.values.map((v, i) => canonicalValue(v, detail.values[i])),
    ...Object.keys(node.properties)
      .sort()
      .map((k) => `${kdlName(k)}=${canonicalValue(node.properties[k] ?? null, detail.properties.get(k))}`),
  ].join(" ")
  if (node.children.length === 0) return [`${indent}${head}`]
  const inner = node.children.flatMap((c) => canonicalNode(c, `${indent}    `))
  return [`${indent}${head} {`, ...inner, `${indent}}`]
}

const typePrefix = (type: string | undefined): string => (type === undefined ? "" : `(${kdlName(type)})`)

const canonicalValue = (v: KdlValue, detail: KdlEntryDetail | undefined): string => {
  const typed = typePrefix(detail?.type)
  if (v === null) return `${typed}#null`
  if (typeof v === "boolean") return `${typed}#${v}`
  if (typeof v === "string") return `${typed}${kdlName(v)}`
  const raw = detail?.number
  return `${typed}${raw === undefined ? formatNumber(v) : canonicalNumber(raw)}`
}

/** `0xFF` → `255`, `+1_000` → `1000`, `1.0e10` → `1.0E+10`: exact, whatever the size. */
export const canonicalNumber = (raw: string): string => {
  const text = raw.replace(/_/g, "")
  const negative = text.startsWith("-")
  const unsigned = text.replace(/^[+-]/, "")
  if (/^0[xob]/.test(unsigned) || /^[0-9]+$/.test(unsigned)) {
    const n = BigInt(unsigned)
    return (negative ? -n : n).toString()
  }
  const [mantissa = "", exponent] = unsigned.split(/[eE]/)
  const e = exponent === undefined ? "" : `E${/^[+-]/.test(exponent) ? exponent : `+${exponent}`}`
  return `${negative ? "-" : ""}${mantissa}${e}`
}
