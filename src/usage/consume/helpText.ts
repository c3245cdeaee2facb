import type { Command, Spec } from "../model.js"
import { argUsage, commandLine, longHelp, shortHelp, usageLine, visibleSubcommands } from "./commands.js"
import { flagLabel, visibleFlags } from "./flags.js"

/**
 * The terminal help of one command (`supervisor start --help`): what it does, its usage line,
 * arguments, flags, subcommands and exit statuses, from the same resolved spec as the
 * Markdown reference and the man page, so the three cannot disagree.
 */
export const helpText = (spec: Spec, command: Command): string => {
  const isRoot = command === spec.root
  const blocks: Array<string> = []
  const title = isRoot
    ? `${spec.bin}${spec.version === undefined ? "" : ` ${spec.version}`}`
    : commandLine(spec, command)
  const about = isRoot ? (spec.long_about ?? spec.about) : longHelp(command)
  blocks.push(about === undefined ? title : `${title}: ${about.trim()}`)
  if (command.aliases.length > 0) blocks.push(`Aliases: ${command.aliases.join(", ")}`)
  blocks.push(`Usage: ${usageLine(spec, command)}`)
  const args = command.args.filter((arg) => arg.hide !== true)
  if (args.length > 0)
    blocks.push(
      section(
        "Arguments",
        args.map((arg) => [argUsage(arg), [arg.help, arg.variadic ? "repeatable" : undefined]]),
      ),
    )
  const subcommands = visibleSubcommands(command)
  // a command made of subcommands is listed as those: `config show`, `config validate`; one that
  // also runs alone (not `subcommand_required`) first has its own line: `daemons`, `daemons add`
  const rows = (sub: Command) => {
    const children = visibleSubcommands(sub)
    if (children.length === 0) return [[[sub.name, ...sub.aliases].join(", "), [shortHelp(sub)]] as const]
    const own = sub.subcommand_required === true ? [] : [[sub.name, [shortHelp(sub)]] as const]
    return [...own, ...children.map((child) => [`${sub.name} ${child.name}`, [shortHelp(child)]] as const)]
  }
  // one section per `help_heading`, in the order of their first command; the others under "Commands"
  const headings = [...new Set(subcommands.map((sub) => sub.help_heading ?? "Commands"))]
  const width = Math.min(28, Math.max(0, ...subcommands.flatMap(rows).map(([label]) => label.length)))
  for (const heading of headings)
    blocks.push(
      section(
        headings.length === 1 ? "Commands" : heading,
        subcommands.filter((sub) => (sub.help_heading ?? "Commands") === heading).flatMap(rows),
        width,
      ),
    )
  // the aliases of a command listed as its subcommands (`sup` for `supervisor`) have no row of their own
  const groupAliases = subcommands.filter(
    (sub) => visibleSubcommands(sub).length > 0 && sub.aliases.length > 0,
  )
  if (groupAliases.length > 0)
    blocks.push(groupAliases.map((sub) => `${sub.aliases.join(", ")}: short for ${sub.name}`).join("\n"))
  const flags = visibleFlags(command)
  if (flags.length > 0)
    blocks.push(
      section(
        "Flags",
        flags.map((flag) => {
          const choices = flag.arg?.choices?.map((c) => c.value)
          return [
            flagLabel(flag),
            [
              flag.help,
              choices !== undefined && choices.length > 0 ? `one of: ${choices.join(", ")}` : undefined,
              flag.default !== undefined ? `default: ${flag.default}` : undefined,
            ],
          ]
        }),
      ),
    )
  if (command.exit_codes.length > 0)
    blocks.push(
      section(
        "Exit status",
        command.exit_codes.map((e) => [String(e.code), [e.description]]),
      ),
    )
  if (subcommands.length > 0)
    blocks.push(`Run \`${commandLine(spec, command)} <COMMAND> --help\` for the help of a command.`)
  return `${blocks.join("\n\n")}\n`
}

/** A heading, then one aligned line per entry: the label, then its notes joined. */
const section = (
  heading: string,
  rows: ReadonlyArray<readonly [string, ReadonlyArray<string | undefined>]>,
  // the sections of one list share their column
  width = Math.min(28, Math.max(...rows.map(([label]) => label.length))),
): string => {
  const lines = rows.map(([label, notes]) => {
    const text = notes.filter((n): n is string => n !== undefined && n !== "").join("; ")
    if (text === "") return `  ${label}`
    return label.length > width
      ? `  ${label}\n  ${" ".repeat(width)}  ${text}`
      : `  ${label.padEnd(width)}  ${text}`
  })
  return `${heading}:\n${lines.join("\n")}`
}
