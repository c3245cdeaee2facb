import type { Problems } from "./errors.js"
import type { KdlValue } from "./kdl/literals.js"
import { type KdlDocNode, parseKdlDocument } from "./kdl/parse.js"

export type { KdlValue } from "./kdl/literals.js"

/**
 * A KDL node with where it came from. `dir` is the directory relative paths in it resolve
 * against (`include file=`, `schema file=`): the directory of the file that holds it, absent
 * for a spec parsed from a string.
 */
export interface KdlNode {
  readonly name: string
  readonly values: ReadonlyArray<KdlValue>
  readonly properties: Readonly<Record<string, KdlValue>>
  readonly children: ReadonlyArray<KdlNode>
  readonly file: string
  readonly line?: number | undefined
  readonly dir?: string | undefined
}

export interface KdlOrigin {
  readonly file: string
  readonly dir?: string | undefined
}

/**
 * Parses KDL 2.0 text (`kdl/parse.ts`). A syntax error is one problem, at its line; KDL 1
 * spellings (`true`, `null`, `r"..."`) are syntax errors whose message shows the KDL 2 one.
 */
export const parseKdl = (
  text: string,
  origin: KdlOrigin,
  problems: Problems,
): ReadonlyArray<KdlNode> | undefined => {
  const result = parseKdlDocument(text)
  if (!result.ok) {
    problems.add({ file: origin.file, line: result.line }, [], "", `KDL syntax error: ${result.message}`)
    return undefined
  }
  const convert = (n: KdlDocNode): KdlNode => ({
    name: n.name,
    values: n.values,
    properties: n.properties,
    children: n.children.map(convert),
    file: origin.file,
    line: n.line,
    dir: origin.dir,
  })
  return result.nodes.map(convert)
}
