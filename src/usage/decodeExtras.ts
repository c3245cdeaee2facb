import { readAttrs } from "./attrs.js"
import { noExtraValues, showKdlValue, stringValue } from "./context.js"
import type { KdlNode, KdlValue } from "./kdl.js"
import type { Complete, Example, Mount } from "./model.js"
import { COMPLETE, EXAMPLE } from "./vocabulary.js"

/**
 * The smaller nodes of the usage language: `complete` (lib/src/spec/complete.rs,
 * docs/spec/reference/complete.md), `mount` (lib/src/spec/mount.rs, docs/spec/reference/cmd.md),
 * and `example` (lib/src/spec/cmd.rs); `config` is in decodeConfig.ts.
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

/**
 * `mount run="mycli mount-usage"` (or `mount { run "..." }`); `overrides_default=#true`: a
 * discovered command wins over the spec's `default_subcommand` (mount.rs).
 */
export const decodeMount = (node: KdlNode, report: (m: string) => void): Mount | undefined => {
  noExtraValues(node, 0, report)
  let run: string | undefined
  let overrides: boolean | undefined
  const take = (key: string, v: KdlValue | undefined, r: (m: string) => void): void => {
    if (key === "run") {
      if (typeof v !== "string")
        r(`run must be a string, got ${v === undefined ? "nothing" : showKdlValue(v)}`)
      else run = v
    } else if (typeof v !== "boolean")
      r(`overrides_default must be #true or #false, got ${v === undefined ? "nothing" : showKdlValue(v)}`)
    else overrides = v
  }
  for (const [k, v] of Object.entries(node.properties)) {
    if (k !== "run" && k !== "overrides_default")
      report(`unknown property ${k}=${showKdlValue(v)} (known: run, overrides_default)`)
    else take(k, v, report)
  }
  for (const child of node.children) {
    if (child.name !== "run" && child.name !== "overrides_default")
      report(`unknown child node "${child.name}" (mount takes run and overrides_default)`)
    else take(child.name, child.values[0], (m) => report(`${child.name}: ${m}`))
  }
  if (run === undefined || run === "") {
    report('mount needs the command to run (mount run="mycli mount-usage")')
    return undefined
  }
  return overrides === true ? { run, overrides_default: true } : { run }
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

/**
 * `group "input" "--file" "--url" required=#true multiple=#true` (lib/src/spec/group.rs): kept as
 * written, checked as usage checks it. Members may also be listed in `flag` children.
 */
export const checkGroup = (node: KdlNode, report: (m: string) => void): void => {
  const name = stringValue(node, 0, 'a name (group "input" "--file" "--url")', report)
  let members = 0
  for (const i of node.values.keys())
    if (i > 0 && stringValue(node, i, "a member", report) !== undefined) members++
  const bool = (k: string, v: KdlValue | undefined, r: (m: string) => void): void => {
    if (typeof v !== "boolean")
      r(`${k} must be #true or #false, got ${v === undefined ? "nothing" : showKdlValue(v)}`)
  }
  for (const [k, v] of Object.entries(node.properties)) {
    if (k === "required" || k === "multiple") bool(k, v, report)
    else report(`unknown property ${k}=${showKdlValue(v)} (known: required, multiple)`)
  }
  for (const child of node.children) {
    const r = (m: string) => report(`${child.name}: ${m}`)
    if (child.name === "required" || child.name === "multiple") bool(child.name, child.values[0], r)
    else if (child.name === "flag")
      for (const i of child.values.keys()) {
        if (stringValue(child, i, "a member", r) !== undefined) members++
      }
    else report(`unknown child node "${child.name}" (a group takes required, multiple and flag)`)
  }
  if (name === "") report('a group needs a name (group "input" "--file" "--url")')
  else if (name !== undefined && members < 2)
    report(
      `group ${name} needs at least two arguments (it has ${members}); a rule about one argument belongs on it (required=#true, conflicts=...)`,
    )
}
