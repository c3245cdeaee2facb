import type { Either } from "effect"
import type { Problems } from "./errors.js"
import { formatNumber } from "./kdl/format.js"
import type { KdlNode } from "./kdl.js"

/** What decoding needs besides the nodes: where problems go and how files are read. */
export interface DecodeContext {
  readonly problems: Problems
  /** Reads an absolute path (and lists it in `sources`); Left: why it could not be read. */
  readonly readFile: (absolutePath: string) => Either.Either<string, string>
  /** How an (absolute) file is named in messages. */
  readonly displayName: (absolutePath: string) => string
}

/** A KDL value as written: `"x"`, `12`, `#true`, `#null`. */
export const showKdlValue = (v: unknown): string =>
  v === null
    ? "#null"
    : typeof v === "boolean"
      ? `#${v}`
      : typeof v === "string"
        ? JSON.stringify(v)
        : typeof v === "number"
          ? formatNumber(v)
          : String(v)

/** A node as an author recognises it in a message: `output "json"`, `exit_code 3`, `include`. */
export const labelOf = (node: KdlNode): string =>
  node.values[0] === undefined ? node.name : `${node.name} ${showKdlValue(node.values[0])}`

/** Reports problems about `node` of the command at `path`. */
export const reporter =
  (ctx: DecodeContext, node: KdlNode, path: ReadonlyArray<string>, label = labelOf(node)) =>
  (message: string): void =>
    ctx.problems.add(node, path, label, message)

/** The string argument at `index`, or undefined (reported) when it is missing or not a string. */
export const stringValue = (
  node: KdlNode,
  index: number,
  what: string,
  report: (message: string) => void,
): string | undefined => {
  const v = node.values[index]
  if (typeof v === "string") return v
  report(v === undefined ? `needs ${what}` : `${what} must be a string, got ${showKdlValue(v)}`)
  return undefined
}

/** Reports arguments past the `max` a node takes. */
export const noExtraValues = (node: KdlNode, max: number, report: (message: string) => void): void => {
  const extra = node.values.slice(max)
  if (extra.length > 0)
    report(`unexpected argument${extra.length > 1 ? "s" : ""} ${extra.map(showKdlValue).join(" ")}`)
}

/** Reports every property of a node that takes none, and its children when it takes none. */
export const noPropsOrChildren = (
  node: KdlNode,
  report: (message: string) => void,
  options: { readonly children?: boolean } = {},
): void => {
  for (const [k, v] of Object.entries(node.properties))
    report(`unknown property ${k}=${showKdlValue(v)} (${node.name} takes none)`)
  if (options.children !== true && node.children.length > 0) report(`${node.name} takes no children`)
}
