import type { Arg, Command, Spec } from "../model.js"

/**
 * Walking the resolved command tree: every consumer needs the same answers (which commands
 * exist, which one a path names, how its usage line reads), so they are computed in one place
 * and the consumers cannot disagree with each other.
 */

/** Every command of the spec, the root first, in declaration order (depth first). */
export const allCommands = (spec: Spec): ReadonlyArray<Command> => {
  const out: Array<Command> = []
  const visit = (command: Command): void => {
    out.push(command)
    for (const sub of command.subcommands) visit(sub)
  }
  visit(spec.root)
  return out
}

/**
 * Every command a user is meant to see: hidden commands, and everything below them, are left
 * out (a hidden parent hides its whole subtree, since no listing ever leads there).
 */
export const visibleCommands = (spec: Spec): ReadonlyArray<Command> => {
  const out: Array<Command> = []
  const visit = (command: Command): void => {
    if (command.hide) return
    out.push(command)
    for (const sub of command.subcommands) visit(sub)
  }
  visit(spec.root)
  return out
}

/**
 * The subcommand a word names: by name first, then by an alias (hidden ones too), so a
 * command's own name outranks another's alias as in usage (lib/src/spec/cmd.rs).
 */
export const findSubcommand = (command: Command, word: string): Command | undefined =>
  command.subcommands.find((sub) => sub.name === word) ??
  command.subcommands.find((sub) => sub.aliases.includes(word) || (sub.hidden_aliases ?? []).includes(word))

/** The command a path names (names or aliases at each level); the root for `[]`. */
export const findCommand = (spec: Spec, path: ReadonlyArray<string>): Command | undefined => {
  let command: Command | undefined = spec.root
  for (const word of path) {
    if (command === undefined) return undefined
    command = findSubcommand(command, word)
  }
  return command
}

/** Subcommands shown in listings, help and completions. */
export const visibleSubcommands = (command: Command): ReadonlyArray<Command> =>
  command.subcommands.filter((sub) => !sub.hide)

/** The words that run a command: `supervisor daemons start` (a spec with no bin: the path alone). */
export const commandLine = (spec: Spec, command: Command): string =>
  [spec.bin, ...command.path].filter((w) => w !== "").join(" ")

/** The usage form of a positional argument: `<name>`, `[name]`, `<name>...`. */
export const argUsage = (arg: Arg): string => {
  if (arg.usage.trim() !== "") return arg.usage.trim()
  const bare = arg.required ? `<${arg.name}>` : `[${arg.name}]`
  return arg.variadic ? `${bare}...` : bare
}

/**
 * The one-line synopsis: `supervisor daemons start [FLAGS] <name>... [COMMAND]`, or
 * `<COMMAND>` when the command requires one (`subcommand_required`).
 */
export const usageLine = (spec: Spec, command: Command): string => {
  const parts = [commandLine(spec, command)]
  if (command.flags.some((flag) => !flag.hide)) parts.push("[FLAGS]")
  for (const arg of command.args) if (arg.hide !== true) parts.push(argUsage(arg))
  if (visibleSubcommands(command).length > 0)
    parts.push(command.subcommand_required === true ? "<COMMAND>" : "[COMMAND]")
  return parts.join(" ")
}

/** A command's help text: the long form when there is one, else the short one. */
export const longHelp = (command: Command): string | undefined => command.long_help ?? command.help

/** The first line of the short help, for tables and completion descriptions. */
export const shortHelp = (command: Command): string | undefined =>
  firstLine(command.help ?? command.long_help)

/** The first non-empty line of a text. */
export const firstLine = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const line = text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "")
  return line
}
