import { readAttrs } from "./attrs.js"
import { labelOf, noExtraValues, noPropsOrChildren, showKdlValue, stringValue } from "./context.js"
import type { KdlNode } from "./kdl.js"
import type { Complete, Config, ConfigFile, ConfigProp, Example, Mount } from "./model.js"
import { COMPLETE, CONFIG_FILE, CONFIG_PROP, EXAMPLE } from "./vocabulary.js"

/**
 * The smaller nodes of the usage language: `complete` (lib/src/spec/complete.rs,
 * docs/spec/reference/complete.md), `mount` (lib/src/spec/mount.rs, docs/spec/reference/cmd.md),
 * `example` (lib/src/spec/cmd.rs) and `config` (lib/src/spec/config.rs,
 * docs/spec/reference/config.md).
 */

/** `complete "plugin" run="mycli plugins" descriptions=#true`; `name` is given for one inside an arg. */
export const decodeComplete = (
  node: KdlNode,
  report: (m: string) => void,
  name?: string,
): Complete | undefined => {
  const named =
    name ??
    stringValue(node, 0, 'the name of the argument it completes (complete "plugin" run="...")', report)
  noExtraValues(node, name === undefined ? 1 : 0, report)
  const attrs = readAttrs(node, COMPLETE, report, { what: "a complete" })
  for (const child of attrs.rest) report(`unknown child node "${child.name}" (complete takes no children)`)
  const how = (["run", "type", "delegate"] as const).filter((k) => attrs.string(k) !== undefined)
  if (how.length > 1) report(`can set only one of run, type or delegate (this one sets ${how.join(" and ")})`)
  const delegate = attrs.string("delegate")
  if (delegate !== undefined) {
    const problem = commandLineProblem(delegate)
    if (problem !== undefined) report(`delegate ${problem}`)
  }
  if (named === undefined) return undefined
  return {
    name: named.toLowerCase(),
    run: attrs.string("run"),
    type: attrs.string("type"),
    delegate,
    descriptions: attrs.bool("descriptions") === true,
  }
}

/** Why a `delegate` is not a command line usage can split, if it is not. */
const commandLineProblem = (text: string): string | undefined => {
  let quote: string | undefined
  let words = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === "\\" && quote === '"') i++
    } else if (ch === "'" || ch === '"') {
      quote = ch
      if (!inWord) words++
      inWord = true
    } else if (/\s/.test(ch)) inWord = false
    else {
      if (!inWord) words++
      inWord = true
      if (ch === "\\") i++
    }
  }
  if (quote !== undefined) return `is not a command line: unclosed ${quote}`
  return words === 0 ? "names no command" : undefined
}

/** `mount run="mycli mount-usage"` (or `mount { run "..." }`). */
export const decodeMount = (node: KdlNode, report: (m: string) => void): Mount | undefined => {
  noExtraValues(node, 0, report)
  let run: string | undefined
  for (const [k, v] of Object.entries(node.properties)) {
    if (k !== "run") report(`unknown property ${k}=${showKdlValue(v)} (known: run)`)
    else if (typeof v !== "string") report(`run must be a string, got ${showKdlValue(v)}`)
    else run = v
  }
  for (const child of node.children) {
    if (child.name !== "run") report(`unknown child node "${child.name}" (mount takes run)`)
    else run = stringValue(child, 0, "the command to run", report) ?? run
  }
  if (run === undefined || run === "") {
    report('mount needs the command to run (mount run="mycli mount-usage")')
    return undefined
  }
  return { run }
}

/** `example "mycli list" header="List" help="..." lang="sh"`. */
export const decodeExample = (node: KdlNode, report: (m: string) => void): Example | undefined => {
  const code = stringValue(node, 0, 'its code (example "mycli start web")', report)
  noExtraValues(node, 1, report)
  const attrs = readAttrs(node, EXAMPLE, report, { what: "an example" })
  if (attrs.rest.length > 0) report("example takes no children")
  if (code === undefined) return undefined
  return {
    code: code.trim(),
    header: attrs.string("header"),
    help: attrs.string("help"),
    lang: attrs.string("lang"),
  }
}

/** `config { file ...; prop ...; default "key" value; alias "key" "other" }`. */
export const decodeConfig = (
  node: KdlNode,
  report: (m: string) => void,
  at: (child: KdlNode) => (m: string) => void = () => report,
): Config => {
  noExtraValues(node, 0, report)
  noPropsOrChildren(node, report, { children: true })
  const files: Array<ConfigFile> = []
  const props: Array<ConfigProp> = []
  const defaults: Array<{ key: string; value: string }> = []
  const aliases: Array<{ key: string; alias: string }> = []
  for (const child of node.children) {
    const r = (m: string) => at(child)(`${labelOf(child)}: ${m}`)
    switch (child.name) {
      case "file": {
        const path = stringValue(child, 0, "its path", r)
        noExtraValues(child, 1, r)
        const attrs = readAttrs(child, CONFIG_FILE, r, { what: "a config file" })
        if (attrs.rest.length > 0) r("file takes no children")
        if (path !== undefined)
          files.push({ path, findup: attrs.bool("findup"), format: attrs.string("format") })
        break
      }
      case "prop": {
        const key = stringValue(child, 0, "its key", r)
        noExtraValues(child, 1, r)
        const attrs = readAttrs(child, CONFIG_PROP, r, { what: "a config prop" })
        if (attrs.rest.length > 0) r("prop takes no children")
        const d = attrs.get("default")
        if (key !== undefined)
          props.push({
            key,
            default: d === undefined ? undefined : String(d),
            default_note: attrs.string("default_note"),
            data_type: attrs.string("data_type"),
            env: attrs.string("env"),
            help: attrs.string("help"),
            long_help: attrs.string("long_help"),
          })
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
        at(child)(`unknown child node "${child.name}" (config takes file, prop, default and alias)`)
    }
  }
  return { files, props, defaults, aliases }
}
