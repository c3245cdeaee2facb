import { Either } from "effect"
import { readAttrs } from "./attrs.js"
import { type DecodeContext, labelOf, noExtraValues, reporter, stringValue } from "./context.js"
import type { FlagDecl } from "./decl.js"
import { decodeArg, readDefault } from "./decodeArg.js"
import { decodeChoices } from "./decodeChoices.js"
import type { KdlNode } from "./kdl.js"
import type { Choice, Effect, Flag } from "./model.js"
import { canonicalFlagName, parseFlagUsage, type ValueUsage } from "./usageString.js"
import { checkDelimiter } from "./valueRules.js"
import { FLAG } from "./vocabulary.js"

/**
 * `flag "-f --format <FMT>" ...` (lib/src/spec/flag.rs, docs/spec/reference/flag.md): the usage
 * string, the properties of vocabulary.ts (`FLAG`), and as children `arg` (the value, restating
 * or replacing the one in the usage string; usage's way to attach choices to it), `choices`,
 * `alias` (more names; `hide=#true` ones are accepted but never offered), `default` (one value or
 * a block of several) and the relations usage keeps as nodes (`default_if`, `requires_if`, ...).
 * Beyond usage, the help may also be given as a second argument.
 */

const FLAG_KEPT_NODES = {
  required_if_eq: [2, 2],
  required_if_eq_all: [2, 64],
  requires_if: [2, 2],
  default_if: [2, 3],
} as const

export const decodeFlag = (
  node: KdlNode,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
): FlagDecl | undefined => {
  const report = reporter(ctx, node, path)
  const label = labelOf(node)
  const at = (child: KdlNode) => reporter(ctx, child, path, label)
  const usage = stringValue(node, 0, 'its usage string (flag "-f --format <FMT>")', report)
  noExtraValues(node, 2, report)
  const second = node.values[1] === undefined ? undefined : stringValue(node, 1, "help", report)
  const attrs = readAttrs(node, FLAG, report, {
    what: "a flag",
    structural: ["arg", "choices", "alias", "default"],
    keepNodes: FLAG_KEPT_NODES,
  })
  const help = attrs.string("help")
  if (second !== undefined && help !== undefined) report("help is given twice (argument and help=); keep one")
  const parsed = usage === undefined ? undefined : parseFlagUsage(usage)
  if (parsed !== undefined && Either.isLeft(parsed)) report(parsed.left)
  const names = parsed !== undefined && Either.isRight(parsed) ? parsed.right : undefined
  let value: ValueUsage | undefined = names?.arg
  let choices: Array<Choice> | undefined
  let ignore_case: boolean | undefined
  let strict: false | undefined
  let choicesEnv: string | undefined
  let choicesNode: KdlNode | undefined
  const long = [...(names?.long ?? [])]
  const short = [...(names?.short ?? [])]
  const hidden: Array<string> = []
  for (const child of attrs.rest) {
    if (child.name === "choices") {
      const decoded = decodeChoices(child, at(child), at)
      choices = [...(choices ?? []), ...decoded.choices]
      ignore_case = decoded.ignore_case ?? ignore_case
      strict = decoded.strict ?? strict
      choicesEnv = decoded.env ?? choicesEnv
      choicesNode ??= child
    } else if (child.name === "arg") {
      // The child restates (or gives) the value; as in usage, it is the one that counts.
      const decoded = decodeArg(
        child,
        (m) => at(child)(`${labelOf(child)}: ${m}`),
        (n) => (m) => at(n)(`${labelOf(child)}: ${m}`),
      )
      if (decoded !== undefined) {
        const { arg } = decoded
        value = { name: arg.name, required: arg.required, variadic: arg.variadic }
        if (arg.choices !== undefined) choices = [...(choices ?? []), ...arg.choices]
        ignore_case = arg.ignore_case ?? ignore_case
        strict = arg.choices_strict === false ? false : strict
        choicesEnv = arg.choices_env ?? choicesEnv
      }
    } else if (child.name === "alias") addAliases(child, long, short, hidden, report)
  }
  if (choicesNode !== undefined && value === undefined)
    report("choices: a flag must take a value to have choices (add <VALUE> to its usage, or a child arg)")
  const defaults = readDefault(attrs, attrs.rest, report)
  if (usage === undefined || names === undefined) return undefined
  const count = attrs.bool("count") === true
  checkDelimiter(node, report, {
    variadic: attrs.bool("var") === true || names.variadic || (value?.variadic ?? false),
    what: `flag ${canonicalFlagName({ long, short, name: names.name })}`,
    takesValue: value !== undefined,
  })
  const flag: Flag = {
    usage,
    long,
    short,
    help: second ?? help,
    global: attrs.bool("global") === true,
    hide: attrs.bool("hide") === true,
    variadic: attrs.bool("var") === true || names.variadic || (value?.variadic ?? false),
    arg:
      value === undefined
        ? undefined
        : {
            name: value.name,
            required: value.required,
            choices,
            ignore_case,
            choices_strict: strict,
            choices_env: choicesEnv,
          },
    default: defaults.first,
    name: names.name,
    long_help: attrs.string("long_help"),
    required: attrs.bool("required") === true && defaults.first === undefined ? true : undefined,
    count: count ? true : undefined,
    negate: attrs.string("negate"),
    env: attrs.string("env"),
    deprecated: attrs.deprecated(),
    default_list: defaults.list,
    conflicts: attrs.strings("conflicts"),
    overrides: attrs.strings("overrides"),
    exclusive: attrs.bool("exclusive") === true ? true : undefined,
    hidden_names: hidden.length === 0 ? undefined : hidden,
    effect: attrs.string("effect") as Effect | undefined,
    kept: attrs.kept,
  }
  return { file: node.file, line: node.line, label: labelOf(node), flag }
}

/** `alias "-u" "--user" hide=#true`: more names for the flag. */
const addAliases = (
  node: KdlNode,
  long: Array<string>,
  short: Array<string>,
  hidden: Array<string>,
  report: (m: string) => void,
): void => {
  const r = (m: string) => report(`alias: ${m}`)
  let hide = false
  for (const [k, v] of Object.entries(node.properties)) {
    if (k === "hide" && typeof v === "boolean") hide = v
    else r(`unknown property ${k}=${String(v)} (known: hide)`)
  }
  if (node.values.length === 0) r('needs at least one name (alias "-u" "--user")')
  for (const i of node.values.keys()) {
    const name = stringValue(node, i, "a name", r)
    if (name === undefined) continue
    if (name.startsWith("--") && name.length > 2) {
      if (!long.includes(name.slice(2))) long.push(name.slice(2))
    } else if (name.startsWith("-") && [...name].length === 2) {
      if (!short.includes(name.slice(1))) short.push(name.slice(1))
    } else {
      r(`"${name}" is not a flag name (a flag alias begins with - or --; a short one is one character)`)
      continue
    }
    if (hide && !hidden.includes(name)) hidden.push(name)
  }
}
