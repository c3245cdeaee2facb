import { labelOf, noExtraValues, showKdlValue, stringValue } from "./context.js"
import type { KdlNode } from "./kdl.js"
import type { Choice } from "./model.js"

/**
 * `choices`, as usage reads it (lib/src/spec/choices.rs): values as arguments (shorthand), or a
 * block of `choice` nodes, each with `help=`, `hide=#true` and `alias` children; both may be
 * mixed, arguments first. `ignore_case=#true` matches values without regard to ASCII case.
 *
 *     choices ignore_case=#true {
 *       choice "always" help="Always use color" { alias "yes"; alias "on" hide=#true; }
 *       choice "never"
 *     }
 *
 * `strict=#false` accepts values outside the set (the set is then a suggestion, for help and
 * completion); `env="NAME"` adds the values listed in that environment variable (split on commas
 * and whitespace) when the command line is checked, and lets the set be empty as written.
 *
 * Refused as usage refuses them: no value at all (and no `env`), a block child other than
 * `choice`, and a `choice` repeating a value already declared.
 */
export interface DecodedChoices {
  readonly choices: Array<Choice>
  readonly ignore_case?: boolean | undefined
  /** Only `false` is kept (the default is strict). */
  readonly strict?: false | undefined
  readonly env?: string | undefined
}

/** `at(child)`: where a problem about a child node goes (its line); default `report`. */
export type ReportAt = (node: KdlNode) => (message: string) => void

export const decodeChoices = (
  node: KdlNode,
  report: (m: string) => void,
  at: ReportAt = () => report,
): DecodedChoices => {
  const r = (m: string) => report(`choices: ${m}`)
  let ignore_case: boolean | undefined
  let strict: false | undefined
  let env: string | undefined
  for (const [k, v] of Object.entries(node.properties)) {
    if (k === "env") {
      if (typeof v === "string" && v !== "") env = v
      else r(`env must name an environment variable, got ${showKdlValue(v)}`)
    } else if (k !== "ignore_case" && k !== "strict")
      r(`unknown property ${k}=${showKdlValue(v)} (known: ignore_case, strict, env)`)
    else if (typeof v !== "boolean") r(`${k} must be #true or #false, got ${showKdlValue(v)}`)
    else if (k === "strict") strict = v ? undefined : false
    else ignore_case = v || undefined
  }
  const choices: Array<Choice> = []
  for (const i of node.values.keys()) {
    const value = stringValue(node, i, "a choice", r)
    if (value !== undefined) choices.push({ value })
  }
  for (const child of node.children) {
    if (child.name !== "choice") {
      at(child)(
        `choices: unknown child node "${child.name}" (a choices block holds choice nodes: choice "value" help="...")`,
      )
      continue
    }
    const r = (m: string) => at(child)(`${labelOf(child)}: ${m}`)
    const choice = decodeChoice(child, r)
    if (choice === undefined) continue
    if (choices.some((c) => c.value === choice.value)) {
      r(`choice "${choice.value}" is declared more than once`)
      continue
    }
    choices.push(choice)
  }
  if (node.values.length === 0 && node.children.length === 0 && !("env" in node.properties))
    r(
      'needs at least one value (choices "a" "b", a block of choice nodes, or env="VAR" naming a variable that lists them)',
    )
  return { choices, ignore_case, strict, env }
}

const decodeChoice = (node: KdlNode, report: (m: string) => void): Choice | undefined => {
  const value = stringValue(node, 0, "its value", report)
  noExtraValues(node, 1, report)
  let help: string | undefined
  let hide: boolean | undefined
  for (const [k, v] of Object.entries(node.properties)) {
    if (k === "help" && typeof v === "string") help = v
    else if (k === "hide" && typeof v === "boolean") hide = v || undefined
    else if (k === "help" || k === "hide")
      report(`${k} must be ${k === "help" ? "a string" : "#true or #false"}, got ${showKdlValue(v)}`)
    else report(`unknown property ${k}=${showKdlValue(v)} (known: help, hide)`)
  }
  const aliases: Array<{ value: string; hide?: boolean }> = []
  for (const child of node.children) {
    const r = (m: string) => report(`${labelOf(child)}: ${m}`)
    if (child.name !== "alias") {
      report(`unknown child node "${child.name}" (a choice block holds alias nodes)`)
      continue
    }
    const alias = stringValue(child, 0, "its value", r)
    noExtraValues(child, 1, r)
    if (child.children.length > 0) r("an alias takes no children")
    let aliasHidden = false
    for (const [k, v] of Object.entries(child.properties)) {
      if (k === "hide" && typeof v === "boolean") aliasHidden = v
      else r(`unknown property ${k}=${showKdlValue(v)} (known: hide)`)
    }
    if (alias !== undefined) aliases.push(aliasHidden ? { value: alias, hide: true } : { value: alias })
  }
  if (value === undefined) return undefined
  return {
    value,
    ...(help === undefined ? {} : { help }),
    ...(hide === undefined ? {} : { hide }),
    ...(aliases.length === 0 ? {} : { aliases }),
  }
}
