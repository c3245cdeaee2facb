import { showKdlValue } from "./context.js"
import { formatNode } from "./kdl/format.js"
import type { KdlNode, KdlValue } from "./kdl.js"
import type { KdlScalar, Kept } from "./model.js"
import { suggestion } from "./suggest.js"
import type { AttrKind, AttrSpec, Vocabulary } from "./vocabulary.js"

/**
 * Reads a node's attributes by its vocabulary (vocabulary.ts): its properties, and the child
 * nodes that restate one (`long_help "..."`). A child written after a property wins, as in
 * usage. Each value is checked against its kind; a bad one is reported and left out, so the node
 * still takes part in later checks (one mistake, one message).
 */

export type AttrValue = string | number | boolean | ReadonlyArray<string>

export interface Attrs {
  /** The value of an interpreted attribute, by its canonical name. */
  readonly get: (name: string) => AttrValue | undefined
  readonly string: (name: string) => string | undefined
  readonly bool: (name: string) => boolean | undefined
  readonly number: (name: string) => number | undefined
  readonly strings: (name: string) => ReadonlyArray<string> | undefined
  /** `deprecated`: `#true` reads "deprecated", `#false` nothing, a string itself. */
  readonly deprecated: () => string | undefined
  /** The attributes kept but not acted on, and the kept child nodes (`keepNodes`). */
  readonly kept: Kept | undefined
  /** Children neither attributes nor kept: the caller's own (`flag`, `arg`, `choices`, ...). */
  readonly rest: ReadonlyArray<KdlNode>
}

export interface AttrOptions {
  /** Child nodes the caller decodes itself. */
  readonly structural?: ReadonlyArray<string>
  /** Child nodes kept verbatim, with the number of arguments each takes ([min, max]). */
  readonly keepNodes?: Readonly<Record<string, readonly [number, number]>>
  /** How the node is named in hints: "a flag". */
  readonly what: string
  /** Where a child's problem goes (default: `report`, prefixed with the child's name). */
  readonly childReport?: (child: KdlNode) => (message: string) => void
}

export const readAttrs = (
  node: KdlNode,
  vocab: Vocabulary,
  report: (message: string) => void,
  options: AttrOptions,
): Attrs => {
  const values = new Map<string, AttrValue>()
  const keptProps = new Map<string, KdlScalar>()
  const keptNodes: Array<string> = []
  const rest: Array<KdlNode> = []
  const structural = options.structural ?? []
  const keepNodes = options.keepNodes ?? {}
  const store = (spec: AttrSpec, key: string, value: AttrValue | undefined, asNode?: KdlNode): void => {
    if (value === undefined) return
    const name = spec.canonical ?? key
    if (spec.keep !== true) values.set(name, value)
    else if (typeof value === "object") {
      if (value.length === 1) keptProps.set(name, value[0]!)
      else if (asNode !== undefined)
        keptNodes.push(formatNode({ ...asNode, name, properties: {} }).join("\n"))
    } else keptProps.set(name, value)
  }
  for (const [key, raw] of Object.entries(node.properties)) {
    const spec = vocab[key]
    if (spec === undefined || spec.as === "child") {
      report(unknownProperty(key, raw, vocab, options.what))
      continue
    }
    store(spec, key, checkValue(spec.kind, key, raw, report))
  }
  for (const child of node.children) {
    const spec = vocab[child.name]
    if (structural.includes(child.name)) {
      rest.push(child)
      continue
    }
    const r = options.childReport?.(child) ?? ((m: string) => report(`${child.name}: ${m}`))
    const arity = keepNodes[child.name]
    if (arity !== undefined) {
      if (child.values.length < arity[0] || child.values.length > arity[1])
        r(`expected ${arityText(arity)}, got ${child.values.length}`)
      else keptNodes.push(formatNode(child).join("\n"))
      continue
    }
    if (spec === undefined || spec.as === "prop") {
      ;(options.childReport?.(child) ?? report)(unknownChild(child.name, vocab, structural, options.what))
      continue
    }
    if (Object.keys(child.properties).length > 0 || child.children.length > 0)
      r("takes one value, no properties or children")
    if (spec.kind === "strings") {
      if (child.values.length === 0) r("needs at least one value")
      const strings = child.values.filter((v): v is string => typeof v === "string")
      if (strings.length < child.values.length) r("values must be strings")
      else if (strings.length > 0) store(spec, child.name, strings, child)
    } else if (child.values.length === 0) r("needs a value")
    else
      store(
        spec,
        child.name,
        checkValue(spec.kind, child.name, child.values[0]!, options.childReport?.(child) ?? report),
      )
  }
  const kept =
    keptProps.size === 0 && keptNodes.length === 0 ? undefined : { props: [...keptProps], nodes: keptNodes }
  const get = (name: string) => values.get(name)
  const typed =
    <T>(test: (v: AttrValue) => v is T & AttrValue) =>
    (name: string): T | undefined => {
      const v = get(name)
      return v !== undefined && test(v) ? v : undefined
    }
  const deprecated = (): string | undefined => {
    const v = get("deprecated")
    return v === true ? "deprecated" : typeof v === "string" ? v : undefined
  }
  return {
    get,
    string: typed((v): v is string => typeof v === "string"),
    bool: typed((v): v is boolean => typeof v === "boolean"),
    number: typed((v): v is number => typeof v === "number"),
    strings: typed((v): v is ReadonlyArray<string> => typeof v === "object"),
    deprecated,
    kept,
    rest,
  }
}

const arityText = ([min, max]: readonly [number, number]): string =>
  min === max ? `${min} argument${min === 1 ? "" : "s"}` : `${min} to ${max} arguments`

/** The value if it is of `kind`, else undefined (reported). */
const checkValue = (
  kind: AttrKind,
  key: string,
  v: KdlValue,
  report: (message: string) => void,
): AttrValue | undefined => {
  const bad = (what: string) => {
    report(`${key} must be ${what}, got ${showKdlValue(v)}`)
    return undefined
  }
  if (typeof kind === "object") {
    if (typeof v === "string" && kind.oneOf.includes(v)) return v
    report(`${key} ${showKdlValue(v)} is not one of ${kind.oneOf.join(", ")}`)
    return undefined
  }
  switch (kind) {
    case "string":
      return typeof v === "string" ? v : bad("a string")
    case "strings":
      return typeof v === "string" ? [v] : bad("a string")
    case "bool":
      return typeof v === "boolean" ? v : bad("#true or #false")
    case "usize":
      return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : bad("a whole number (0 or more)")
    case "scalar":
      return v === null ? bad("a string, a number or a boolean") : v
    case "bool_or_string":
      return typeof v === "boolean" || typeof v === "string" ? v : bad("#true, #false or a string")
  }
}

const attrNames = (vocab: Vocabulary, as: "prop" | "child"): Array<string> =>
  Object.entries(vocab)
    .filter(([, spec]) => spec.as === undefined || spec.as === "both" || spec.as === as)
    .map(([name]) => name)

/** `unknown property colour="red" (did you mean color?)`, or the list when it is short. */
export const unknownProperty = (key: string, value: KdlValue, vocab: Vocabulary, what: string): string => {
  const names = attrNames(vocab, "prop")
  const near = suggestion(key, names)
  const hint =
    near !== undefined
      ? `did you mean ${near}?`
      : names.length === 0
        ? "it takes none"
        : names.length <= 12
          ? `known: ${names.join(", ")}`
          : `not a property of ${what} in the usage language; see docs/usage-spec.md`
  return `unknown property ${key}=${showKdlValue(value)} (${hint})`
}

export const unknownChild = (
  name: string,
  vocab: Vocabulary,
  structural: ReadonlyArray<string>,
  what: string,
): string => {
  const names = [...structural, ...attrNames(vocab, "child")]
  const near = suggestion(name, names)
  const hint =
    near !== undefined
      ? `did you mean ${near}?`
      : names.length === 0
        ? `${what} takes no children`
        : names.length <= 12
          ? `${what} takes ${names.join(", ")}`
          : `${what} takes ${structural.join(", ")} and its properties as child nodes; see docs/usage-spec.md`
  return `unknown child node "${name}" (${hint})`
}
