import { readAttrs } from "./attrs.js"
import { labelOf, noExtraValues, noPropsOrChildren, showKdlValue, stringValue } from "./context.js"
import { formatNode } from "./kdl/format.js"
import type { KdlNode, KdlValue } from "./kdl.js"
import type { Config, ConfigFile, ConfigProp, ConfigSource } from "./model.js"
import { CONFIG_FILE, CONFIG_PROP } from "./vocabulary.js"

/**
 * `config { source ...; file ...; prop ...; default "key" value; alias "key" "other" }`, as usage
 * reads it (lib/src/spec/config.rs, docs/spec/reference/config.md). A `prop`'s properties are in
 * vocabulary.ts (`CONFIG_PROP`); its child nodes (`env`, `cli`, `alias`, `example`, `source`,
 * `default`, `choices`, `x`, `long_help`) are checked here and kept as written. Numbers must fit a
 * 64-bit integer, and a string default must read as the declared type, as in usage.
 */

type Report = (message: string) => void

/** The child nodes of a `prop`: what each takes. */
const PROP_CHILDREN = [
  "env",
  "deprecated_env",
  "alias",
  "cli",
  "example",
  "long_help",
  "default",
  "source",
  "choices",
  "x",
]

const I64_MIN = -(2 ** 63)
const I64_MAX = 2 ** 63

/**
 * Why a KDL value cannot be a config value, if it cannot. Our KDL numbers are doubles, so an
 * integer past ±2^63 is refused whether it was written as an integer or as a whole float.
 */
const valueProblem = (v: KdlValue): string | undefined => {
  if (typeof v !== "number") return undefined
  if (!Number.isFinite(v)) return "must be a finite number"
  if (Number.isInteger(v) && (v >= I64_MAX || v < I64_MIN))
    return "does not fit in a 64-bit integer (-9223372036854775808 to 9223372036854775807); quote it to keep it as text"
  return undefined
}

/** The legacy type a `type=`/`data_type=` names, when a string default must read as it. */
const scalarType = (type: string): "integer" | "float" | "boolean" | undefined => {
  const t = type.trim()
  if (["int", "integer", "uint", "usize"].includes(t)) return "integer"
  if (["float", "number"].includes(t)) return "float"
  if (["bool", "boolean"].includes(t)) return "boolean"
  return undefined
}

const readsAs = (text: string, type: "integer" | "float" | "boolean"): boolean => {
  if (type === "boolean") return text === "true" || text === "false"
  if (type === "integer") return /^[+-]?\d+$/.test(text) && valueProblem(Number(text)) === undefined
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) && Number.isFinite(Number(text))
}

/** Each argument a string (`env "A" "B"`); `min` of them at least. */
const strings = (child: KdlNode, min: number, r: Report): void => {
  if (child.values.length < min) r(`needs at least ${min} value${min === 1 ? "" : "s"}`)
  for (const v of child.values) if (typeof v !== "string") r(`values must be strings, got ${showKdlValue(v)}`)
}

const noBlock = (node: KdlNode, what: string, r: Report): void => {
  if (node.children.length > 0) r(`a config ${what} takes properties, not a block`)
}

/** A `prop`'s child node: checked; the caller keeps it as written. */
const checkPropChild = (child: KdlNode, r: Report): void => {
  switch (child.name) {
    case "env":
    case "deprecated_env":
    case "alias":
    case "cli":
    case "example": {
      strings(child, 0, r)
      return
    }
    case "source": {
      strings(child, 1, r)
      return
    }
    case "long_help":
      if (child.values.length !== 1 || typeof child.values[0] !== "string") r("takes one string")
      return
    case "default":
      for (const v of child.values) {
        if (v === null) r("a default list holds values, not #null")
        else {
          const problem = valueProblem(v)
          if (problem !== undefined) r(`config default ${problem}`)
        }
      }
      return
    case "x": {
      if (child.values.length !== 2)
        r(`takes a key and a value (x "tool.key" "value"), got ${child.values.length} values`)
      else if (typeof child.values[0] !== "string") r("its key must be a string")
      else if (child.values[1] === null) r("an extension value cannot be #null; it would not round-trip")
      else {
        const problem = valueProblem(child.values[1]!)
        if (problem !== undefined) r(`extension value ${problem}`)
      }
      return
    }
    case "choices":
      for (const choice of child.children) {
        const cr = (m: string) => r(`${labelOf(choice)}: ${m}`)
        if (choice.name !== "choice") {
          r('a choices block holds `choice` nodes (choice "value" help="...")')
          continue
        }
        const v = choice.values[0]
        if (choice.values.length !== 1) cr("takes one value")
        else if (v === null) cr("a choice needs a value")
        else {
          const problem = valueProblem(v!)
          if (problem !== undefined) cr(`choice ${problem}`)
        }
        for (const [k, pv] of Object.entries(choice.properties))
          if (k !== "help") cr(`unknown property ${k}=${showKdlValue(pv)} (known: help)`)
          else if (typeof pv !== "string") cr(`help must be a string, got ${showKdlValue(pv)}`)
        noBlock(choice, "choice", cr)
      }
  }
}

const decodeProp = (child: KdlNode, r: Report): ConfigProp | undefined => {
  const key = stringValue(child, 0, "its key", r)
  noExtraValues(child, 1, r)
  const nested = child.children.filter((c) => c.name === "prop")
  for (const n of nested)
    r(
      `${labelOf(n)}: config props cannot nest; write the key as "${key ?? "a"}.${String(n.values[0] ?? "b")}"`,
    )
  const attrs = readAttrs(
    { ...child, children: child.children.filter((c) => c.name !== "prop") },
    CONFIG_PROP,
    r,
    { what: "a config prop", structural: PROP_CHILDREN },
  )
  const kept: Array<string> = []
  for (const c of attrs.rest) {
    checkPropChild(c, (m) => r(`${c.name}: ${m}`))
    kept.push(formatNode(c).join("\n"))
  }
  const d = child.properties.default
  let defaultText: string | undefined
  if (d !== undefined && d !== null) {
    const problem = valueProblem(d)
    if (problem !== undefined) r(`config default ${problem}`)
    else defaultText = String(d)
  }
  const type = attrs.string("type") ?? attrs.string("data_type")
  const declared = type === undefined || type.includes("|") ? undefined : scalarType(type)
  if (typeof d === "string" && declared !== undefined && !readsAs(d, declared))
    r(`config default ${JSON.stringify(d)} cannot be read as the declared type \`${type}\``)
  if (key === undefined) return undefined
  const keptProps = attrs.kept?.props ?? []
  return {
    key,
    default: defaultText,
    default_note: attrs.string("default_note"),
    data_type: attrs.string("data_type"),
    type: attrs.string("type"),
    env: attrs.string("env"),
    help: attrs.string("help"),
    long_help: attrs.string("long_help"),
    deprecated: attrs.string("deprecated"),
    kept: keptProps.length === 0 && kept.length === 0 ? undefined : { props: keptProps, nodes: kept },
  }
}

const SOURCE_KEYS = ["name", "doc_hint", "set_hint"] as const

const decodeSource = (child: KdlNode, r: Report): ConfigSource | undefined => {
  const kind = stringValue(child, 0, 'its kind (source "git" name="git config")', r)
  noExtraValues(child, 1, r)
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(child.properties)) {
    if (!(SOURCE_KEYS as ReadonlyArray<string>).includes(k))
      r(`unknown property ${k}=${showKdlValue(v)} (known: ${SOURCE_KEYS.join(", ")})`)
    else if (typeof v !== "string") r(`${k} must be a string, got ${showKdlValue(v)}`)
    else out[k] = v
  }
  noBlock(child, "source", r)
  return kind === undefined ? undefined : { kind, ...out }
}

export const decodeConfig = (
  node: KdlNode,
  report: Report,
  at: (child: KdlNode) => Report = () => report,
): Config => {
  noExtraValues(node, 0, report)
  noPropsOrChildren(node, report, { children: true })
  const files: Array<ConfigFile> = []
  const props: Array<ConfigProp> = []
  const sources: Array<ConfigSource> = []
  const defaults: Array<{ key: string; value: string }> = []
  const aliases: Array<{ key: string; alias: string }> = []
  for (const child of node.children) {
    const r = (m: string) => at(child)(`${labelOf(child)}: ${m}`)
    switch (child.name) {
      case "file": {
        const path = stringValue(child, 0, "its path", r)
        noExtraValues(child, 1, r)
        const attrs = readAttrs({ ...child, children: [] }, CONFIG_FILE, r, { what: "a config file" })
        noBlock(child, "file", r)
        if (path !== undefined)
          files.push({
            path,
            findup: attrs.bool("findup"),
            scope: attrs.string("scope") as ConfigFile["scope"],
            format: attrs.string("format"),
          })
        break
      }
      case "prop": {
        const prop = decodeProp(child, r)
        if (prop !== undefined) {
          // A later declaration of a key replaces the earlier one, as in usage.
          const same = props.findIndex((p) => p.key === prop.key)
          if (same >= 0) props.splice(same, 1)
          props.push(prop)
        }
        break
      }
      case "source": {
        const source = decodeSource(child, r)
        if (source !== undefined) sources.push(source)
        break
      }
      case "default":
      case "alias": {
        const key = stringValue(child, 0, "the key", r)
        const second = child.values[1]
        noExtraValues(child, 2, r)
        noPropsOrChildren(child, r)
        if (child.name === "alias") {
          const alias = stringValue(child, 1, "the other name", r)
          if (key !== undefined && alias !== undefined) aliases.push({ key, alias })
        } else if (second === undefined || second === null) r('needs a value (default "user" "admin")')
        else if (key !== undefined) defaults.push({ key, value: String(second) })
        break
      }
      default:
        at(child)(`unknown child node "${child.name}" (config takes source, file, prop, default and alias)`)
    }
  }
  return sources.length === 0
    ? { files, props, defaults, aliases }
    : { files, props, defaults, aliases, sources }
}
