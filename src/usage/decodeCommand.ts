import { Either } from "effect"
import { type DecodeContext, labelOf, noExtraValues, reporter, stringValue } from "./context.js"
import type { CommandDecl, ExampleDecl, ExitCodeDecl, FlagDecl, OutputDecl, SelectDecl } from "./decl.js"
import { decodeExitCode, decodeOutput, decodeSelect } from "./decodeOutput.js"
import { formatNode } from "./kdl/format.js"
import type { KdlNode } from "./kdl.js"
import type { Arg, Choice, Flag, PassthroughNode } from "./model.js"
import { ArgProps, ChoiceProps, CmdProps, decodeProps, ExampleProps, FlagProps, NoProps } from "./props.js"
import { parseFlagUsage, parseValueUsage, type ValueUsage } from "./usageString.js"

/**
 * The nodes of the usage format inside a command (and at top level, which is the root command):
 * `flag`, `arg`, `cmd`, `example`, `alias`, plus the output declarations. Nodes this module does
 * not interpret are kept as KDL text (`passthrough`), never dropped.
 */

/** Usage-format nodes that belong to a command even at top level (the rest go to `Spec.passthrough`). */
const COMMAND_SCOPED = new Set(["complete", "mount"])
/** Top-level metadata, decoded by the caller. */
export const METADATA = ["name", "bin", "version", "about", "long_about", "author", "license"] as const

export const toPassthrough = (node: KdlNode): PassthroughNode => ({
  kdl: formatNode(node).join("\n"),
})

export interface Body {
  readonly flags: Array<FlagDecl>
  readonly args: Array<Arg>
  readonly outputs: Array<OutputDecl>
  readonly selects: Array<SelectDecl>
  readonly exit_codes: Array<ExitCodeDecl>
  readonly examples: Array<ExampleDecl>
  readonly subcommands: Array<CommandDecl>
  readonly passthrough: Array<PassthroughNode>
  readonly aliases: Array<string>
  /** Top level only: nodes kept at spec level. */
  readonly specPassthrough: Array<PassthroughNode>
  /** `help`/`long_help` given as child nodes of a `cmd`. */
  readonly childHelp: { help?: string; long_help?: string }
}

const push = <A>(into: Array<A>, a: A | undefined): void => {
  if (a !== undefined) into.push(a)
}

export const decodeBody = (
  nodes: ReadonlyArray<KdlNode>,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
  top: boolean,
): Body => {
  const body: Body = {
    flags: [],
    args: [],
    outputs: [],
    selects: [],
    exit_codes: [],
    examples: [],
    subcommands: [],
    passthrough: [],
    aliases: [],
    specPassthrough: [],
    childHelp: {},
  }
  for (const node of nodes) {
    const report = reporter(ctx, node, path)
    switch (node.name) {
      case "flag":
        push(body.flags, decodeFlag(node, path, ctx))
        break
      case "arg":
        push(body.args, decodeArg(node, report))
        break
      case "cmd":
        push(body.subcommands, decodeCmd(node, path, ctx))
        break
      case "output":
        push(body.outputs, decodeOutput(node, path, ctx))
        break
      case "select":
        push(body.selects, decodeSelect(node, path, ctx))
        break
      case "exit_code":
        push(body.exit_codes, decodeExitCode(node, path, ctx))
        break
      case "example":
        push(body.examples, decodeExample(node, report))
        break
      default:
        if (top && (METADATA as ReadonlyArray<string>).includes(node.name)) break
        if (!top && node.name === "alias") {
          decodeProps(NoProps, node.properties, report)
          if (node.values.length === 0) report('alias needs at least one name (alias "ls")')
          for (const i of node.values.keys()) push(body.aliases, stringValue(node, i, "an alias", report))
        } else if (!top && (node.name === "help" || node.name === "long_help")) {
          decodeProps(NoProps, node.properties, report)
          noExtraValues(node, 1, report)
          const text = stringValue(node, 0, "its text", report)
          if (text !== undefined) body.childHelp[node.name] = text
        } else if (top && !COMMAND_SCOPED.has(node.name)) body.specPassthrough.push(toPassthrough(node))
        else body.passthrough.push(toPassthrough(node))
    }
  }
  return body
}

const decodeCmd = (
  node: KdlNode,
  parent: ReadonlyArray<string>,
  ctx: DecodeContext,
): CommandDecl | undefined => {
  const report = reporter(ctx, node, parent)
  const name = stringValue(node, 0, 'a name (cmd "start")', report)
  noExtraValues(node, 2, report)
  const help2 = node.values[1] === undefined ? undefined : stringValue(node, 1, "help", report)
  const props = decodeProps(CmdProps, node.properties, report)
  if (name === undefined) return undefined
  const path = [...parent, name]
  const body = decodeBody(node.children, path, ctx, false)
  const pick = (key: "help" | "long_help", ...given: Array<string | undefined>): string | undefined => {
    const set = given.filter((g) => g !== undefined)
    if (set.length > 1) report(`${key} is given more than once; keep one`)
    return set[0]
  }
  return {
    file: node.file,
    line: node.line,
    label: labelOf(node),
    name,
    aliases: body.aliases,
    help: pick("help", props.help, help2, body.childHelp.help),
    long_help: pick("long_help", props.long_help, body.childHelp.long_help),
    hide: props.hide,
    ...bodyFields(body),
  }
}

/** What a command declaration takes from its decoded body (a `cmd`, or the top level for the root). */
export const bodyFields = (body: Body) => ({
  flags: body.flags,
  args: body.args,
  outputs: body.outputs,
  selects: body.selects,
  exit_codes: body.exit_codes,
  examples: body.examples,
  subcommands: body.subcommands,
  passthrough: body.passthrough,
})

/**
 * Choices in two forms: `choices "a" "b"` (shorthand), or a block giving each choice its help:
 *
 *     choices {
 *       choice "json" help="one JSON document"
 *       choice "text"
 *     }
 *
 * Both may be mixed (arguments first). The writer uses the block form only when a choice has help.
 */
const decodeChoices = (node: KdlNode, report: (m: string) => void): Array<Choice> => {
  decodeProps(NoProps, node.properties, (m) => report(`choices: ${m}`))
  const choices: Array<Choice> = []
  for (const i of node.values.keys()) {
    const value = stringValue(node, i, "a choice", (m) => report(`choices: ${m}`))
    if (value !== undefined) choices.push({ value })
  }
  for (const child of node.children) {
    if (child.name !== "choice") {
      report(`choices: unknown child node "${child.name}" (expected choice "value" help="...")`)
      continue
    }
    const r = (m: string) => report(`${labelOf(child)}: ${m}`)
    const value = stringValue(child, 0, "its value", r)
    noExtraValues(child, 1, r)
    const props = decodeProps(ChoiceProps, child.properties, r)
    if (value !== undefined) choices.push(props.help === undefined ? { value } : { value, help: props.help })
  }
  return choices
}

/** The optional help a flag or arg takes as its second argument or `help=` (not both). */
const helpOf = (node: KdlNode, prop: string | undefined, report: (m: string) => void): string | undefined => {
  noExtraValues(node, 2, report)
  const second = node.values[1] === undefined ? undefined : stringValue(node, 1, "help", report)
  if (second !== undefined && prop !== undefined) report("help is given twice (argument and help=); keep one")
  return second ?? prop
}

const decodeFlag = (node: KdlNode, path: ReadonlyArray<string>, ctx: DecodeContext): FlagDecl | undefined => {
  const report = reporter(ctx, node, path)
  const usage = stringValue(node, 0, 'its usage string (flag "-f --format <FMT>")', report)
  const props = decodeProps(FlagProps, node.properties, report)
  let help = helpOf(node, props.help, report)
  const parsed = usage === undefined ? undefined : parseFlagUsage(usage)
  if (parsed !== undefined && Either.isLeft(parsed)) report(parsed.left)
  let value: ValueUsage | undefined =
    parsed !== undefined && Either.isRight(parsed) ? parsed.right.arg : undefined
  let choices: Array<Choice> | undefined
  for (const child of node.children) {
    if (child.name === "choices") choices = [...(choices ?? []), ...decodeChoices(child, report)]
    else if (child.name === "help") {
      const text = stringValue(child, 0, "its text", report)
      if (help !== undefined) report("help is given more than once; keep one")
      help = help ?? text
    } else if (child.name === "arg") {
      if (value !== undefined)
        report("the value is given both in the usage string and as a child arg; keep one")
      const arg = decodeArg(child, (m) => report(`arg: ${m}`))
      if (arg !== undefined) {
        value = { name: arg.name, required: arg.required, variadic: arg.variadic }
        if (arg.choices !== undefined) choices = [...(choices ?? []), ...arg.choices]
      }
    } else report(`unknown child node "${child.name}" (a flag takes arg, choices and help)`)
  }
  if (choices !== undefined && value === undefined) report("choices on a flag that takes no value")
  if (usage === undefined || parsed === undefined || Either.isLeft(parsed)) return undefined
  const flag: Flag = {
    usage,
    long: parsed.right.long,
    short: parsed.right.short,
    help,
    global: props.global,
    hide: props.hide,
    variadic: props.var || (value?.variadic ?? false),
    arg: value === undefined ? undefined : { name: value.name, required: value.required, choices },
    default: props.default,
  }
  return { file: node.file, line: node.line, label: labelOf(node), flag }
}

const decodeArg = (node: KdlNode, report: (m: string) => void): Arg | undefined => {
  const usage = stringValue(node, 0, "its usage (<name>, [name] or <name>...)", report)
  const props = decodeProps(ArgProps, node.properties, report)
  let help = helpOf(node, props.help, report)
  let choices: Array<Choice> | undefined
  for (const child of node.children) {
    if (child.name === "choices") choices = [...(choices ?? []), ...decodeChoices(child, report)]
    else if (child.name === "help") {
      if (help !== undefined) report("help is given more than once; keep one")
      help = help ?? stringValue(child, 0, "its text", report)
    } else report(`unknown child node "${child.name}" (an arg takes choices and help)`)
  }
  if (usage === undefined) return undefined
  const parsed = parseValueUsage(usage)
  if (Either.isLeft(parsed)) {
    report(parsed.left)
    return undefined
  }
  const v = parsed.right
  return { name: v.name, usage, required: v.required, variadic: v.variadic || props.var, help, choices }
}

const decodeExample = (node: KdlNode, report: (m: string) => void): ExampleDecl | undefined => {
  const code = stringValue(node, 0, 'its code (example "supervisor start web")', report)
  noExtraValues(node, 1, report)
  const props = decodeProps(ExampleProps, node.properties, report)
  if (node.children.length > 0) report("example takes no children")
  return code === undefined ? undefined : { code, header: props.header, help: props.help }
}
