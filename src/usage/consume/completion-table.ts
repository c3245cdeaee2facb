import type { Arg, Choice, Command, Complete, Flag, Spec } from "../model.js"
import { allCommands, firstLine, shortHelp } from "./commands.js"
import { commandFlags, flagChoices, valueName } from "./flags.js"

/**
 * The data every completion script embeds, computed once so the three shells offer the same
 * words. Commands are numbered (the root is 0) so scripts can key their tables by a small
 * integer instead of quoting command paths into shell patterns.
 */
export interface CompletionNode {
  readonly id: number
  readonly command: Command
  /** Subcommands reachable from here: all (hidden too, so typing one still works). */
  readonly children: ReadonlyArray<{
    readonly id: number
    /** The name and aliases, every word that selects it. */
    readonly words: ReadonlyArray<string>
    readonly name: string
    readonly help: string | undefined
    readonly hidden: boolean
  }>
  /** All flags (hidden ones too: needed to know whether one consumes the next word). */
  readonly flags: ReadonlyArray<CompletionFlag>
  readonly args: ReadonlyArray<{
    readonly arg: Arg
    readonly choices: ReadonlyArray<Choice> | undefined
    readonly value: ValueSource | undefined
  }>
}

export interface CompletionFlag {
  readonly flag: Flag
  readonly help: string | undefined
  /** With `help` borrowed from the output a selector value names. */
  readonly choices: ReadonlyArray<Choice> | undefined
  readonly value: ValueSource | undefined
}

/**
 * Where the candidates of a value come from when it has no choices: a `complete` node's command
 * (usage matches it by the argument's name, docs/spec/reference/complete.md), or files and
 * directories (`type="file"`/`"dir"`, or an argument named `file`, `path` or `dir`).
 */
export type ValueSource =
  | { readonly kind: "run"; readonly complete: Complete & { readonly run: string } }
  | { readonly kind: "files" }
  | { readonly kind: "dirs" }

const valueSource = (
  command: Command,
  name: string | undefined,
  hasChoices: boolean,
): ValueSource | undefined => {
  if (name === undefined || hasChoices) return undefined
  const key = name.toLowerCase()
  const complete = command.complete?.find((c) => c.name === key)
  if (complete?.run !== undefined) return { kind: "run", complete: { ...complete, run: complete.run } }
  const type = complete?.type ?? key
  if (type === "dir" || type === "directory") return { kind: "dirs" }
  if (type === "file" || type === "path") return { kind: "files" }
  return undefined
}

const visible = (choices: ReadonlyArray<Choice> | undefined): ReadonlyArray<Choice> | undefined =>
  choices?.filter((c) => c.hide !== true)

export const completionTable = (spec: Spec): ReadonlyArray<CompletionNode> => {
  const commands = allCommands(spec)
  const ids = new Map<Command, number>(commands.map((c, i) => [c, i]))
  return commands.map((command, id) => ({
    id,
    command,
    children: command.subcommands.map((sub) => ({
      id: ids.get(sub)!,
      words: [sub.name, ...sub.aliases],
      name: sub.name,
      help: shortHelp(sub),
      hidden: sub.hide,
    })),
    // A flag with only a `name:` has nothing to type: nothing to complete.
    flags: commandFlags(command)
      .filter((flag) => flag.long.length + flag.short.length > 0)
      .map((flag) => {
        const choices = flagChoices(command, flag)
        return {
          flag,
          help: firstLine(flag.help),
          choices,
          value:
            flag.arg === undefined
              ? undefined
              : valueSource(command, valueName(flag), (choices?.length ?? 0) > 0),
        }
      }),
    args: command.args.map((arg) => {
      const choices = visible(arg.choices)
      return { arg, choices, value: valueSource(command, arg.name, (choices?.length ?? 0) > 0) }
    }),
  }))
}

/** A name usable inside shell function names: `my-cli` → `my_cli`. */
export const shellIdent = (bin: string): string => bin.replace(/[^A-Za-z0-9_]/g, "_")

/** Single-quotes a word for bash/zsh: `it's` → `'it'\''s'`. */
export const shQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
