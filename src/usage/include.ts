import * as nodePath from "node:path"
import { Either } from "effect"
import { type DecodeContext, noExtraValues, reporter, showKdlValue } from "./context.js"
import { type KdlNode, parseKdl } from "./kdl.js"

/**
 * Replaces every `include file="..."` (at any depth) by the nodes of that file, so the rest of
 * the parser sees one tree. Included nodes keep their own file and directory: their errors name
 * that file, and their relative `schema file=` and nested includes resolve from it. Including
 * the same file twice (for example shared outputs in two commands) is fine; a cycle is an error.
 */
export const expandIncludes = (
  nodes: ReadonlyArray<KdlNode>,
  ctx: DecodeContext,
  stack: ReadonlyArray<string> = [],
): Array<KdlNode> =>
  nodes.flatMap((node): Array<KdlNode> => {
    if (node.name !== "include") {
      return [{ ...node, children: expandIncludes(node.children, ctx, stack) }]
    }
    const report = reporter(ctx, node, [])
    let file: string | undefined
    for (const [k, v] of Object.entries(node.properties)) {
      if (k !== "file") report(`unknown property ${k}=${showKdlValue(v)} (known: file)`)
      else if (typeof v !== "string") report(`file must be a string, got ${showKdlValue(v)}`)
      else file = v
    }
    noExtraValues(node, 0, report)
    if (node.children.length > 0) report("include takes no children")
    if (file === undefined) {
      report('include needs file="<path>"')
      return []
    }
    if (!nodePath.isAbsolute(file)) {
      if (node.dir === undefined) {
        report(
          `include file "${file}" is relative, but the spec was parsed from a string (no directory to resolve it against); use an absolute path`,
        )
        return []
      }
      file = nodePath.resolve(node.dir, file)
    }
    if (stack.includes(file)) {
      report(`include cycle: ${[...stack, file].join(" -> ")}`)
      return []
    }
    const text = ctx.readFile(file)
    if (Either.isLeft(text)) {
      report(`cannot read included file ${file}: ${text.left}`)
      return []
    }
    const included = parseKdl(
      text.right,
      { file: ctx.displayName(file), dir: nodePath.dirname(file) },
      ctx.problems,
    )
    return included === undefined ? [] : expandIncludes(included, ctx, [...stack, file])
  })
