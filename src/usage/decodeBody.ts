import { type Attrs, readAttrs } from "./attrs.js"
import { type DecodeContext, labelOf, reporter, stringValue } from "./context.js"
import type {
  CommandAttrs,
  CommandDecl,
  ExitCodeDecl,
  FlagDecl,
  OutputDecl,
  SelectDecl,
  UseDecl,
} from "./decl.js"
import { decodeArg } from "./decodeArg.js"
import { checkGroup, decodeComplete, decodeExample, decodeMount } from "./decodeExtras.js"
import { decodeFlag } from "./decodeFlag.js"
import { decodeExitCode, decodeOutput, decodeSelect } from "./decodeOutput.js"
import { decodeUse } from "./flagsets.js"
import { formatNode } from "./kdl/format.js"
import type { KdlNode } from "./kdl.js"
import type { Arg, Complete, Effect, Example, Mount, PassthroughNode } from "./model.js"
import { CMD } from "./vocabulary.js"

/**
 * The nodes inside a `cmd` (lib/src/spec/cmd.rs, docs/spec/reference/cmd.md) and, for the root
 * command, at the top level: flags (and `use` of flagsets), args, subcommands, aliases,
 * examples, completers, mounts and the output declarations. A `group` or `clause` is kept as
 * written, not acted on. A second `cmd` of the same name replaces the first in its place, as usage does.
 */

/** The structural nodes of a command body (the rest are attributes, vocabulary.ts). */
export const BODY_NODES = [
  "flag",
  "use",
  "arg",
  "cmd",
  "alias",
  "example",
  "complete",
  "mount",
  "group",
  "clause",
  "output",
  "select",
  "exit_code",
] as const

export interface Body {
  readonly flags: Array<FlagDecl>
  readonly uses: Array<UseDecl>
  readonly args: Array<Arg>
  readonly outputs: Array<OutputDecl>
  readonly selects: Array<SelectDecl>
  readonly exit_codes: Array<ExitCodeDecl>
  readonly examples: Array<Example>
  readonly complete: Array<Complete>
  readonly mounts: Array<Mount>
  readonly subcommands: Array<CommandDecl>
  readonly passthrough: Array<PassthroughNode>
  readonly aliases: Array<string>
  readonly hidden_aliases: Array<string>
}

const push = <A>(into: Array<A>, a: A | undefined): void => {
  if (a !== undefined) into.push(a)
}

/** The body nodes of a command, in order (`nodes` holds only structural nodes). */
export const decodeBody = (
  nodes: ReadonlyArray<KdlNode>,
  path: ReadonlyArray<string>,
  ctx: DecodeContext,
): Body => {
  const body: Body = {
    flags: [],
    uses: [],
    args: [],
    outputs: [],
    selects: [],
    exit_codes: [],
    examples: [],
    complete: [],
    mounts: [],
    subcommands: [],
    passthrough: [],
    aliases: [],
    hidden_aliases: [],
  }
  for (const node of nodes) {
    const report = reporter(ctx, node, path)
    switch (node.name) {
      case "flag":
        push(body.flags, decodeFlag(node, path, ctx))
        break
      case "use":
        push(body.uses, decodeUse(node, body.flags.length, report))
        break
      case "arg": {
        const label = labelOf(node)
        const decoded = decodeArg(node, report, (child) => reporter(ctx, child, path, label))
        if (decoded === undefined) break
        body.args.push(decoded.arg)
        const inline = decoded.complete?.node
        if (inline !== undefined) push(body.complete, decodeComplete(inline, report, decoded.arg.name))
        break
      }
      case "cmd": {
        const cmd = decodeCmd(node, path, ctx)
        if (cmd === undefined) break
        const same = body.subcommands.findIndex((c) => c.name === cmd.name)
        if (same >= 0) body.subcommands[same] = cmd
        else body.subcommands.push(cmd)
        break
      }
      case "alias":
        decodeAlias(node, body, report)
        break
      case "example":
        push(body.examples, decodeExample(node, report))
        break
      case "complete":
        push(body.complete, decodeComplete(node, report))
        break
      case "mount":
        push(body.mounts, decodeMount(node, report))
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
      default:
        // `group` and `clause` (and, at the top level, `view`): usage's, kept as written.
        if (node.name === "group") checkGroup(node, report)
        body.passthrough.push({ kdl: formatNode(node).join("\n") })
    }
  }
  return body
}

/** `alias "ls" "l"` (`hide=#true`: accepted, never listed). */
const decodeAlias = (node: KdlNode, body: Body, report: (m: string) => void): void => {
  let hide = false
  for (const [k, v] of Object.entries(node.properties)) {
    if (k === "hide" && typeof v === "boolean") hide = v
    else report(`unknown property ${k}=${String(v)} (known: hide)`)
  }
  if (node.children.length > 0) report("alias takes no children")
  if (node.values.length === 0) report('alias needs at least one name (alias "ls")')
  for (const i of node.values.keys())
    push(hide ? body.hidden_aliases : body.aliases, stringValue(node, i, "an alias", report))
}

/** What a command's attributes (or the top level's, for the root) say. */
export const commandAttrs = (attrs: Attrs): CommandAttrs => ({
  help: attrs.string("help"),
  long_help: attrs.string("long_help"),
  hide: attrs.bool("hide") === true,
  effect: attrs.string("effect") as Effect | undefined,
  subcommand_required: attrs.bool("subcommand_required") === true ? true : undefined,
  deprecated: attrs.deprecated(),
  before_help: attrs.string("before_help"),
  before_long_help: attrs.string("before_long_help"),
  after_help: attrs.string("after_help"),
  after_long_help: attrs.string("after_long_help"),
  help_heading: attrs.string("help_heading"),
  kept: attrs.kept,
})

/** A command declaration from its decoded body (a `cmd`, or the top level for the root). */
export const commandDecl = (
  at: { readonly file: string; readonly line?: number | undefined; readonly label: string },
  name: string,
  attrs: CommandAttrs,
  body: Body,
): CommandDecl => ({
  ...at,
  ...attrs,
  name,
  aliases: body.aliases,
  hidden_aliases: body.hidden_aliases,
  flags: body.flags,
  uses: body.uses,
  args: body.args,
  outputs: body.outputs,
  selects: body.selects,
  exit_codes: body.exit_codes,
  examples: body.examples,
  complete: body.complete,
  mounts: body.mounts,
  subcommands: body.subcommands,
  passthrough: body.passthrough,
})

const decodeCmd = (
  node: KdlNode,
  parent: ReadonlyArray<string>,
  ctx: DecodeContext,
): CommandDecl | undefined => {
  const report = reporter(ctx, node, parent)
  const name = stringValue(node, 0, 'a name (cmd "start")', report)
  if (node.values.length > 1)
    report(`cmd takes one argument, its name; write the help as help=${JSON.stringify(node.values[1])}`)
  const path = name === undefined ? parent : [...parent, name]
  const attrs = readAttrs(node, CMD, report, {
    what: "a cmd",
    structural: BODY_NODES,
    childReport: (child) => reporter(ctx, child, path),
  })
  if (name === undefined) return undefined
  const body = decodeBody(attrs.rest, path, ctx)
  return commandDecl(
    { file: node.file, line: node.line, label: labelOf(node) },
    name,
    commandAttrs(attrs),
    body,
  )
}
