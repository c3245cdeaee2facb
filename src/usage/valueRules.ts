import { showKdlValue } from "./context.js"
import { exprSyntaxError } from "./exprSyntax.js"
import type { KdlNode, KdlValue } from "./kdl.js"

/**
 * Rules usage holds a flag's or an argument's value to beyond its vocabulary (lib/src/spec/
 * {arg,flag}.rs): `delimiter` is one ASCII character and needs somewhere to put what it
 * splits, and `validate` is an expression that parses (usage-validation's `check`).
 */

/** A property, or the same attribute given as a child node (the later one wins). */
const attr = (node: KdlNode, name: string): KdlValue | undefined => {
  const child = node.children.filter((c) => c.name === name).at(-1)
  return child !== undefined ? child.values[0] : node.properties[name]
}

export const checkDelimiter = (
  node: KdlNode,
  report: (m: string) => void,
  value: { readonly variadic: boolean; readonly what: string; readonly takesValue?: boolean },
): void => {
  const raw = attr(node, "delimiter")
  if (raw === undefined || typeof raw !== "string") return
  const chars = [...raw]
  if (chars.length !== 1) {
    report(`delimiter: a delimiter is one character, and ${showKdlValue(raw)} is not`)
    return
  }
  if (raw.charCodeAt(0) > 0x7f) {
    report(
      `delimiter: a delimiter is one byte, and ${showKdlValue(raw)} is more than one; use an ASCII separator`,
    )
    return
  }
  if (value.takesValue === false) {
    report(`delimiter: \`delimiter\` splits a value, and ${value.what} takes none (add <VALUE> to its usage)`)
    return
  }
  if (!value.variadic)
    report(
      `delimiter: ${value.what} has a delimiter and holds one value; add \`var=#true\` for the values it splits into`,
    )
}

export const checkValidate = (node: KdlNode, report: (m: string) => void): void => {
  const expression = attr(node, "validate")
  if (attr(node, "validate_error") !== undefined && expression === undefined)
    report('validate_error requires a validate expression (validate="int(value) > 0")')
  if (typeof expression !== "string") return
  const problem = exprSyntaxError(expression)
  if (problem !== undefined)
    report(`validate: invalid validation expression ${JSON.stringify(expression)}: ${problem}`)
}
