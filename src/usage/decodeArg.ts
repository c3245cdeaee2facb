import { Either } from "effect"
import { type Attrs, readAttrs } from "./attrs.js"
import { noExtraValues, stringValue } from "./context.js"
import { decodeChoices, type ReportAt } from "./decodeChoices.js"
import type { KdlNode } from "./kdl.js"
import type { Arg, Choice, DoubleDash, Effect } from "./model.js"
import { parseArgUsage } from "./usageString.js"
import { checkDelimiter, checkValidate } from "./valueRules.js"
import { ARG } from "./vocabulary.js"

/**
 * `arg "<name>" ...` (lib/src/spec/arg.rs, docs/spec/reference/arg.md): the usage string, the
 * properties of vocabulary.ts (`ARG`), and as children `choices`, `default` (one value, or a
 * block of several) and `complete run=...` (a completer for this argument, which takes no name).
 * Beyond usage, the help may also be given as a second argument (`arg "<file>" "the input"`).
 */

/** Relations usage keeps on an arg as child nodes with several values. */
export const ARG_KEPT_NODES = { required_if_eq: [2, 2], required_if_eq_all: [2, 64] } as const

export interface DecodedArg {
  readonly arg: Arg
  /** An inline `complete run=...`: it completes this argument. */
  readonly complete?: { readonly node: KdlNode } | undefined
}

/** `default "x"`, `default=#true`, or `default { "a"; "b" }`: the first value, and all of them. */
export const readDefault = (
  attrs: Attrs,
  rest: ReadonlyArray<KdlNode>,
  report: (m: string) => void,
): { readonly first?: string; readonly list?: ReadonlyArray<string> } => {
  const prop = attrs.get("default")
  let list: Array<string> | undefined = prop === undefined ? undefined : [String(prop)]
  for (const child of rest.filter((c) => c.name === "default")) {
    if (child.children.length > 0) list = child.children.map((c) => c.name)
    else {
      const v = child.values[0]
      if (v === undefined || v === null) report("default: needs a value")
      else list = [String(v)]
    }
  }
  if (list === undefined || list.length === 0) return {}
  return list.length === 1 ? { first: list[0]! } : { first: list[0]!, list }
}

export const decodeArg = (
  node: KdlNode,
  report: (m: string) => void,
  at: ReportAt = () => report,
): DecodedArg | undefined => {
  const usage = stringValue(node, 0, "its usage (<name>, [name] or name)", report)
  noExtraValues(node, 2, report)
  const second = node.values[1] === undefined ? undefined : stringValue(node, 1, "help", report)
  const attrs = readAttrs(node, ARG, report, {
    what: "an arg",
    structural: ["choices", "default", "complete"],
    keepNodes: ARG_KEPT_NODES,
  })
  const help = attrs.string("help")
  if (second !== undefined && help !== undefined) report("help is given twice (argument and help=); keep one")
  let choices: Array<Choice> | undefined
  let ignore_case: boolean | undefined
  let strict: false | undefined
  let choicesEnv: string | undefined
  let complete: KdlNode | undefined
  for (const child of attrs.rest) {
    if (child.name === "choices") {
      const decoded = decodeChoices(child, at(child), at)
      choices = [...(choices ?? []), ...decoded.choices]
      ignore_case = decoded.ignore_case ?? ignore_case
      strict = decoded.strict ?? strict
      choicesEnv = decoded.env ?? choicesEnv
    } else if (child.name === "complete") {
      if (child.values.length > 0)
        report("complete: a complete inside an arg completes that arg, so it takes no name")
      else complete = child
    }
  }
  const defaults = readDefault(attrs, attrs.rest, report)
  if (usage === undefined) return undefined
  const parsed = parseArgUsage(usage)
  if (Either.isLeft(parsed)) {
    report(parsed.left)
    return undefined
  }
  const v = parsed.right
  const fixed = fixedArity(node, v.value_names, attrs, report)
  const variadic = v.variadic || attrs.bool("var") === true || fixed !== undefined
  checkDelimiter(node, report, { variadic, what: `argument <${v.name}>` })
  checkValidate(node, report)
  const required = defaults.first !== undefined ? false : (attrs.bool("required") ?? v.required)
  const double_dash = (attrs.string("double_dash") as DoubleDash | undefined) ?? v.double_dash
  const arg: Arg = {
    name: v.name,
    usage,
    required,
    variadic,
    help: second ?? help,
    choices,
    ignore_case,
    choices_strict: strict,
    choices_env: choicesEnv,
    long_help: attrs.string("long_help"),
    default: defaults.first,
    default_list: defaults.list,
    env: attrs.string("env"),
    hide: attrs.bool("hide") === true ? true : undefined,
    double_dash: double_dash === "optional" ? undefined : double_dash,
    var_min: attrs.number("var_min") ?? fixed,
    var_max: attrs.number("var_max") ?? fixed,
    effect: attrs.string("effect") as Effect | undefined,
    kept: attrs.kept,
  }
  return { arg, complete: complete === undefined ? undefined : { node: complete } }
}

/**
 * The fixed number of values of `arg "<start> <end>"` or a `value_names "start" "end"` child:
 * `var_min` and `var_max`, when given, must both be that number (arg.rs).
 */
const fixedArity = (
  node: KdlNode,
  fromUsage: ReadonlyArray<string> | undefined,
  attrs: Attrs,
  report: (m: string) => void,
): number | undefined => {
  const child = node.children.filter((c) => c.name === "value_names").at(-1)
  const names = child === undefined ? fromUsage : child.values
  if (names === undefined || names.length < 2) return undefined
  const n = names.length
  const min = attrs.number("var_min")
  const max = attrs.number("var_max")
  if ((min !== undefined || max !== undefined) && (min !== n || max !== n))
    report(
      `${n} value names require var_min=${n} and var_max=${n} (got ${min === undefined ? "no var_min" : `var_min=${min}`} and ${max === undefined ? "no var_max" : `var_max=${max}`}); drop both or make them ${n}`,
    )
  return n
}
