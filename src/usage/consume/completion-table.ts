import type { Arg, Choice, Command, Flag, Spec } from "../model.js"
import { allCommands, firstLine, shortHelp } from "./commands.js"
import { commandFlags, flagChoices } from "./flags.js"

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
  readonly args: ReadonlyArray<{ readonly arg: Arg; readonly choices: ReadonlyArray<Choice> | undefined }>
}

export interface CompletionFlag {
  readonly flag: Flag
  readonly help: string | undefined
  /** With `help` borrowed from the output a selector value names. */
  readonly choices: ReadonlyArray<Choice> | undefined
}

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
    flags: commandFlags(command).map((flag) => ({
      flag,
      help: firstLine(flag.help),
      choices: flagChoices(command, flag),
    })),
    args: command.args.map((arg) => ({ arg, choices: arg.choices })),
  }))
}

/** A name usable inside shell function names: `my-cli` → `my_cli`. */
export const shellIdent = (bin: string): string => bin.replace(/[^A-Za-z0-9_]/g, "_")

/** Single-quotes a word for bash/zsh: `it's` → `'it'\''s'`. */
export const shQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
