import type { Command as CliCommand, HelpDoc } from "@effect/cli"
import type * as Span from "@effect/cli/HelpDoc/Span"
import type { Option } from "effect"
import type { Arg, Choice, Flag } from "../../usage/model.js"
import { formatValueUsage } from "../../usage/usageString.js"

/**
 * Reads an `@effect/cli` command tree (names, descriptions, options, args, subcommands) so that
 * the CLI's own usage spec is generated from the parser that actually runs, not written twice.
 *
 * @effect/cli keeps its descriptors opaque: `Command.descriptor`, `Options` and `Args` expose no
 * fields in their public types. The internal instructions are plain objects tagged by `_tag`
 * (see `@effect/cli/src/internal/{commandDescriptor,options,args,primitive}.ts`); the interfaces
 * below describe the fields this walk reads, and `asNode` is the one cast from the public types.
 * A shape this module does not know fails loudly (`unknownTag`), so an @effect/cli upgrade that
 * changes them breaks the tests instead of silently dropping flags.
 */

/** A command as the CLI parses it, before outputs and exit codes are added. */
export interface CliTree {
  readonly name: string
  readonly help?: string | undefined
  readonly flags: ReadonlyArray<Flag>
  readonly args: ReadonlyArray<Arg>
  readonly subcommands: ReadonlyArray<CliTree>
}

interface PrimitiveNode {
  readonly _tag:
    | "Bool"
    | "Choice"
    | "DateTime"
    | "Float"
    | "Integer"
    | "Path"
    | "Redacted"
    | "Secret"
    | "Text"
  readonly alternatives?: ReadonlyArray<readonly [string, unknown]>
}

interface OptionSingle {
  readonly _tag: "Single"
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly primitiveType: PrimitiveNode
  readonly description: HelpDoc.HelpDoc
  readonly pseudoName: Option.Option<string>
}

type OptionsNode =
  | { readonly _tag: "Empty" }
  | OptionSingle
  | { readonly _tag: "KeyValueMap"; readonly argumentOption: OptionSingle }
  | { readonly _tag: "Variadic"; readonly argumentOption: OptionSingle }
  | { readonly _tag: "Map" | "WithFallback"; readonly options: OptionsNode }
  | { readonly _tag: "WithDefault"; readonly options: OptionsNode; readonly fallback: unknown }
  | { readonly _tag: "Both" | "OrElse"; readonly left: OptionsNode; readonly right: OptionsNode }

type ArgsNode =
  | { readonly _tag: "Empty" }
  | {
      readonly _tag: "Single"
      readonly pseudoName: Option.Option<string>
      readonly primitiveType: PrimitiveNode
      readonly description: HelpDoc.HelpDoc
    }
  | { readonly _tag: "Map" | "WithDefault" | "WithFallbackConfig"; readonly args: ArgsNode }
  | { readonly _tag: "Variadic"; readonly args: ArgsNode; readonly min: Option.Option<number> }
  | { readonly _tag: "Both"; readonly left: ArgsNode; readonly right: ArgsNode }

type DescriptorNode =
  | {
      readonly _tag: "Standard"
      readonly name: string
      readonly description: HelpDoc.HelpDoc
      readonly options: OptionsNode
      readonly args: ArgsNode
    }
  | { readonly _tag: "GetUserInput"; readonly name: string; readonly description: HelpDoc.HelpDoc }
  | { readonly _tag: "Map"; readonly command: DescriptorNode }
  | {
      readonly _tag: "Subcommands"
      readonly parent: DescriptorNode
      readonly children: ReadonlyArray<DescriptorNode>
    }

/** The one cast from @effect/cli's opaque public types to the internal shapes above. */
const asNode = <N>(value: unknown): N => value as N

const unknownTag = (what: string, node: { readonly _tag: string }): never => {
  throw new Error(
    `@effect/cli changed: unknown ${what} instruction "${node._tag}"; update src/cli/usageSpec/effectCli.ts`,
  )
}

/** `CliCommand.Command` has too many type parameters to name here; only `descriptor` is read. */
export interface AnyCliCommand {
  readonly descriptor: CliCommand.Command<string, never, unknown, unknown>["descriptor"]
}

/** The command tree of an `@effect/cli` command (its `descriptor`). */
export const readCliTree = (command: AnyCliCommand): CliTree =>
  readDescriptor(asNode<DescriptorNode>(command.descriptor))

const readDescriptor = (node: DescriptorNode): CliTree => {
  switch (node._tag) {
    case "Standard":
      return {
        name: node.name,
        help: helpText(node.description),
        flags: readOptions(asNode<OptionsNode>(node.options)),
        args: readArgs(asNode<ArgsNode>(node.args), { required: true, variadic: false }),
        subcommands: [],
      }
    case "GetUserInput":
      return { name: node.name, help: helpText(node.description), flags: [], args: [], subcommands: [] }
    case "Map":
      return readDescriptor(node.command)
    case "Subcommands":
      return { ...readDescriptor(node.parent), subcommands: node.children.map(readDescriptor) }
    default:
      return unknownTag("command", node)
  }
}

/** A description as plain text: paragraphs joined by blank lines, styling dropped. */
export const helpText = (doc: HelpDoc.HelpDoc): string | undefined => {
  const blocks: Array<string> = []
  const visit = (d: HelpDoc.HelpDoc): void => {
    switch (d._tag) {
      case "Empty":
        return
      case "Header":
      case "Paragraph":
        blocks.push(spanText(d.value))
        return
      case "DescriptionList":
        for (const [term, body] of d.definitions) {
          blocks.push(spanText(term))
          visit(body)
        }
        return
      case "Enumeration":
        for (const e of d.elements) visit(e)
        return
      case "Sequence":
        visit(d.left)
        visit(d.right)
    }
  }
  visit(doc)
  const text = blocks
    .map((b) => b.trim())
    .filter((b) => b !== "")
    .join("\n\n")
  return text === "" ? undefined : text
}

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
  }
}

const choicesOf = (p: PrimitiveNode): Array<Choice> | undefined =>
  p._tag === "Choice" ? (p.alternatives ?? []).map(([value]) => ({ value })) : undefined

/** `--web-port` takes `<WEB_PORT>` unless the option was given a pseudo name. */
const valueName = (o: OptionSingle): string =>
  o.pseudoName._tag === "Some" ? o.pseudoName.value : o.name.toUpperCase().replaceAll("-", "_")

interface FlagMods {
  readonly variadic: boolean
  readonly default?: string | undefined
  readonly keyValue?: boolean
}

const toFlag = (o: OptionSingle, mods: FlagMods): Flag => {
  const names = [o.name, ...o.aliases]
  const short = names.filter((n) => n.length === 1)
  const long = names.filter((n) => n.length > 1)
  const takesValue = o.primitiveType._tag !== "Bool"
  const value = mods.keyValue === true ? "KEY=VALUE" : valueName(o)
  const usage = [
    ...short.map((s) => `-${s}`),
    ...long.map((l) => `--${l}`),
    ...(takesValue ? [`<${value}>`] : []),
  ].join(" ")
  const choices = choicesOf(o.primitiveType)
  return {
    usage,
    long,
    short,
    help: helpText(o.description),
    global: false,
    hide: false,
    variadic: mods.variadic,
    arg: takesValue
      ? { name: value, required: true, ...(choices === undefined ? {} : { choices }) }
      : undefined,
    default: takesValue ? mods.default : undefined,
  }
}

/**
 * The flags of an options tree, in declaration order. `optional` is `WithDefault(Map(x), None)`,
 * a boolean's `false` default is also a `WithDefault`: only a plain value default (a string or a
 * number) is kept as the flag's `default`.
 */
const readOptions = (node: OptionsNode, mods: FlagMods = { variadic: false }): Array<Flag> => {
  switch (node._tag) {
    case "Empty":
      return []
    case "Single":
      return [toFlag(node, mods)]
    case "Variadic":
      return [toFlag(node.argumentOption, { ...mods, variadic: true })]
    case "KeyValueMap":
      return [toFlag(node.argumentOption, { ...mods, variadic: true, keyValue: true })]
    case "Map":
    case "WithFallback":
      return readOptions(node.options, mods)
    case "WithDefault": {
      const f = node.fallback
      const plain = typeof f === "string" || typeof f === "number" ? String(f) : undefined
      return readOptions(node.options, { ...mods, default: mods.default ?? plain })
    }
    case "Both":
    case "OrElse":
      return [...readOptions(node.left, mods), ...readOptions(node.right, mods)]
    default:
      return unknownTag("options", node)
  }
}

interface ArgMods {
  readonly required: boolean
  readonly variadic: boolean
}

/** Positional arguments: `repeated` (min 0) and `optional`/`withDefault` make them optional. */
const readArgs = (node: ArgsNode, mods: ArgMods): Array<Arg> => {
  switch (node._tag) {
    case "Empty":
      return []
    case "Single": {
      const name =
        node.pseudoName._tag === "Some" ? node.pseudoName.value : node.primitiveType._tag.toLowerCase()
      const choices = choicesOf(node.primitiveType)
      return [
        {
          name,
          usage: formatValueUsage({ name, ...mods }),
          required: mods.required,
          variadic: mods.variadic,
          help: helpText(node.description),
          ...(choices === undefined ? {} : { choices }),
        },
      ]
    }
    case "Map":
      return readArgs(node.args, mods)
    case "WithDefault":
    case "WithFallbackConfig":
      return readArgs(node.args, { ...mods, required: false })
    case "Variadic": {
      const min = node.min._tag === "Some" ? node.min.value : 0
      return readArgs(node.args, { required: mods.required && min > 0, variadic: true })
    }
    case "Both":
      return [...readArgs(node.left, mods), ...readArgs(node.right, mods)]
    default:
      return unknownTag("args", node)
  }
}
