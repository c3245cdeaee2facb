import { type Node, parse, type Value } from "kdljs"
import type { Problems } from "./errors.js"
import { locateNodes } from "./locate.js"

/**
 * A KDL node with where it came from. `dir` is the directory relative paths in it resolve
 * against (`include file=`, `schema file=`): the directory of the file that holds it, absent
 * for a spec parsed from a string.
 */
export interface KdlNode {
  readonly name: string
  readonly values: ReadonlyArray<Value>
  readonly properties: Readonly<Record<string, Value>>
  readonly children: ReadonlyArray<KdlNode>
  readonly file: string
  readonly line?: number | undefined
  readonly dir?: string | undefined
  /** The kdljs node, kept to re-emit a passed-through node as KDL. */
  readonly raw: Node
}

export interface KdlOrigin {
  readonly file: string
  readonly dir?: string | undefined
}

/**
 * Parses KDL 2.0 text (kdljs 0.3.0 implements KDL 2.0: `#true`/`#false`/`#null`, raw strings
 * `#"..."#`, multi-line strings, `;`, `/-`). KDL 1 spellings are syntax errors there; the error
 * then says what KDL 2 expects instead of kdljs's list of every token it would accept.
 */
export const parseKdl = (
  text: string,
  origin: KdlOrigin,
  problems: Problems,
): ReadonlyArray<KdlNode> | undefined => {
  const result = parse(text)
  if (result.errors.length > 0 || result.output === undefined) {
    for (const e of result.errors) {
      const line = errorLine(e.token, text)
      problems.add({ file: origin.file, line }, [], "", syntaxMessage(e, text.split("\n")[line - 1] ?? ""))
    }
    if (result.errors.length === 0) problems.add(origin, [], "", "KDL syntax error")
    return undefined
  }
  const lines = locateNodes(text, result.output)
  const convert = (n: Node): KdlNode => ({
    name: n.name,
    values: n.values,
    properties: n.properties,
    children: n.children.map(convert),
    file: origin.file,
    line: lines.get(n),
    dir: origin.dir,
    raw: n,
  })
  return result.output.map(convert)
}

interface ErrorToken {
  readonly image?: string
  readonly startLine?: number
}

const errorLine = (token: ErrorToken | undefined, text: string): number => {
  const line = token?.startLine
  // At end of input chevrotain reports NaN: the problem is on the last line.
  return line !== undefined && Number.isFinite(line) ? line : text.split("\n").length
}

const syntaxMessage = (e: { readonly token?: ErrorToken }, lineText: string): string => {
  const image = e.token?.image ?? ""
  const what = image === "" ? "end of input" : JSON.stringify(image)
  // kdljs's own message lists every token sequence it would have accepted: not useful here.
  return `KDL syntax error: unexpected ${what}${kdl1Hint(lineText)}`
}

/**
 * Points at the KDL 2 spelling when the failing line looks like KDL 1: a bare `true`, `false`
 * or `null` (outside quoted strings) as an argument or property value.
 */
const kdl1Hint = (lineText: string): string => {
  const bare = /(?:^|[\s=])(true|false|null)(?=[\s;}]|$)/.exec(lineText.replace(/"(?:[^"\\]|\\.)*"/g, '""'))
  return bare === null ? "" : ` (KDL 2 writes #${bare[1]})`
}
