import type { Command, ExitCode, Flag, Output, Spec } from "../model.js"
import { argUsage, commandLine, longHelp, shortHelp, usageLine, visibleCommands } from "./commands.js"
import { flagChoices, flagNames, isValueSelector, selectorArgv, valueName, visibleFlags } from "./flags.js"
import { EFFECT_LABEL } from "./notes.js"
import { bold, italic, literal, macroArg, prose, verbatim } from "./roff.js"
import { prettySchema } from "./schema-text.js"

/**
 * One section-1 man page for the whole program. Global flags are documented once (OPTIONS);
 * each command lists its own flags and arguments under COMMANDS. Outputs and exit statuses are
 * mostly inherited, so commands whose lists are identical share one subsection instead of the
 * page repeating the same table for every command.
 */
export const manPage = (spec: Spec): string => {
  const root = spec.root
  const commands = visibleCommands(spec)
  const title = (spec.bin || spec.name || "program").toUpperCase()
  const source = [spec.name ?? spec.bin, spec.version].filter((s) => s !== undefined).join(" ")
  const lines: Array<string> = [
    `.\\" Generated from the usage spec of ${spec.bin}; do not edit.`,
    `.TH ${macroArg(title)} 1 "" ${macroArg(source)} "User Commands"`,
    ".SH NAME",
    `${literal(spec.bin)} \\- ${inline(spec.about ?? shortHelp(root) ?? spec.bin)}`,
    ".SH SYNOPSIS",
    ...commands.flatMap((c, i) => [...(i > 0 ? [".br"] : []), synopsis(spec, c)]),
  ]
  const description = spec.long_about ?? spec.about ?? longHelp(root)
  if (description !== undefined) lines.push(".SH DESCRIPTION", prose(description))

  const subcommands = commands.filter((c) => c !== root)
  if (subcommands.length > 0) {
    lines.push(".SH COMMANDS")
    for (const command of subcommands) lines.push(...commandEntry(spec, command))
  }

  const rootFlags = visibleFlags(root)
  const globals = uniqueFlags(commands.flatMap((c) => visibleFlags(c).filter((f) => f.global)))
  const options = uniqueFlags([...rootFlags, ...globals])
  if (options.length > 0 || root.args.length > 0) {
    lines.push(".SH OPTIONS")
    for (const arg of root.args) lines.push(".TP", italic(argUsage(arg)), prose(arg.help ?? ""))
    for (const flag of options) lines.push(...flagEntry(root, flag))
  }

  const withOutputs = commands.filter((c) => c.outputs.length > 0)
  if (withOutputs.length > 0) {
    lines.push(".SH OUTPUT FORMATS")
    lines.push(
      prose(
        "What a command writes to standard output. Framing text is unstructured; json is one JSON document read to the end of the stream; jsonl is one JSON document per line.",
      ),
    )
    for (const group of groupBy(withOutputs, (c) => JSON.stringify(c.outputs))) {
      lines.push(`.SS ${macroArg(group.map((c) => commandLine(spec, c)).join(", "))}`)
      for (const output of group[0]!.outputs) lines.push(...outputEntry(output))
    }
  }

  const withCodes = commands.filter((c) => c.exit_codes.length > 0)
  if (withCodes.length > 0) {
    lines.push(".SH EXIT STATUS")
    const groups = groupBy(withCodes, (c) => JSON.stringify(c.exit_codes))
    for (const group of groups) {
      if (groups.length > 1) lines.push(`.SS ${macroArg(group.map((c) => commandLine(spec, c)).join(", "))}`)
      for (const exit of group[0]!.exit_codes) lines.push(...exitEntry(exit))
    }
  }
  lines.push(...environment(commands, spec), ...files(spec))
  if (spec.author !== undefined) lines.push(".SH AUTHOR", prose(spec.author))
  return `${lines.join("\n")}\n`
}

/** A synopsis line: the command words in bold, the rest (flags, arguments) in roman. */
const synopsis = (spec: Spec, command: Command): string => {
  const words = commandLine(spec, command)
  const rest = usageLine(spec, command).slice(words.length).trim()
  return rest === "" ? bold(words) : `${bold(words)} ${literal(rest)}`
}

/** A command under COMMANDS: its usage as the tag, help, aliases, arguments and own flags. */
const commandEntry = (spec: Spec, command: Command): Array<string> => {
  const lines = [".TP", synopsis(spec, command)]
  const help = longHelp(command)
  lines.push(help === undefined ? "" : prose(help))
  if (command.aliases.length > 0) lines.push(".br", `Aliases: ${command.aliases.map(bold).join(", ")}.`)
  if (command.deprecated !== undefined) lines.push(".br", prose(`Deprecated: ${command.deprecated}.`))
  if (command.effect !== undefined) lines.push(".br", `Effect: ${EFFECT_LABEL[command.effect]}.`)
  for (const m of command.mounts ?? [])
    lines.push(".br", `More subcommands come from the usage spec ${bold(m.run)} prints.`)
  const own = visibleFlags(command).filter((f) => !f.global)
  const args = command.args.filter((a) => a.hide !== true)
  if (args.length > 0 || own.length > 0) {
    lines.push(".RS")
    for (const arg of args) {
      const notes = [arg.long_help ?? arg.help, arg.required ? "Required." : "Optional."]
      const choices = arg.choices?.filter((c) => c.hide !== true)
      if (choices !== undefined) notes.push(`One of: ${choices.map((c) => c.value).join(", ")}.`)
      if (arg.default !== undefined) notes.push(`Default: ${(arg.default_list ?? [arg.default]).join(", ")}.`)
      if (arg.env !== undefined) notes.push(`Environment: ${arg.env}.`)
      if (arg.double_dash === "required") notes.push("Given after --.")
      lines.push(".TP", italic(argUsage(arg)), prose(sentences(notes)))
    }
    for (const flag of own) lines.push(...flagEntry(command, flag))
    lines.push(".RE")
  }
  return lines.filter((l) => l !== "")
}

/** A flag: `-f, --format FMT` as the tag, then help, choices (with their help) and default. */
const flagEntry = (command: Command, flag: Flag): Array<string> => {
  const value = valueName(flag)
  const tag = `${flagNames(flag).map(bold).join(", ")}${value === undefined ? "" : ` ${italic(value)}`}`
  const lines = [".TP", tag]
  if (flag.help !== undefined) lines.push(prose(flag.help))
  const choices = flagChoices(command, flag)
  if (choices !== undefined && choices.length > 0) {
    lines.push(".br", `One of: ${choices.map((c) => bold(c.value)).join(", ")}.`)
  }
  if (flag.default !== undefined) lines.push(".br", `Default: ${bold(flag.default)}.`)
  for (const note of extraFlagNotes(flag)) lines.push(".br", note)
  if (isValueSelector(command, flag)) {
    lines.push(
      ".br",
      "Selects the output; each command accepts the names of its own outputs (see OUTPUT FORMATS).",
    )
  } else if (flag.global) {
    lines.push(".br", "Accepted by every command.")
  }
  return lines
}

/** An output: name (and default) as the tag; selection argv, framing, media type; the schema. */
const outputEntry = (output: Output): Array<string> => {
  const lines = [".TP", `${bold(output.name)}${output.default ? " (default)" : ""}`]
  if (output.help !== undefined) lines.push(prose(output.help), ".br")
  const facts = [
    output.selector === null ? undefined : `selected with ${bold(selectorArgv(output.selector))}`,
    `framing ${bold(output.framing)}`,
    output.media_type === undefined ? undefined : `media type ${bold(output.media_type)}`,
  ].filter((f) => f !== undefined)
  const sentence = facts.join("; ")
  lines.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`)
  if (output.schema !== undefined) {
    const pretty = prettySchema(output.schema)
    lines.push(".sp", pretty === undefined ? "Schema (not valid JSON; verbatim):" : "JSON Schema:")
    lines.push(verbatim(pretty ?? output.schema))
  }
  return lines
}

/** What a flag says beyond help, choices and default: `required`, `env`, `negate`, ... */
const extraFlagNotes = (flag: Flag): Array<string> => {
  const notes: Array<string> = []
  if (flag.required === true) notes.push("Required.")
  if (flag.env !== undefined) notes.push(`Environment: ${bold(flag.env)}.`)
  if (flag.negate !== undefined) notes.push(`Turned off by ${bold(flag.negate)}.`)
  if (flag.count === true) notes.push("Counts: each use adds one.")
  if (flag.conflicts !== undefined) notes.push(`Cannot be used with ${flag.conflicts.map(bold).join(", ")}.`)
  if (flag.exclusive === true) notes.push("Must be given alone.")
  if (flag.deprecated !== undefined) notes.push(prose(`Deprecated: ${flag.deprecated}.`))
  if (flag.effect !== undefined) notes.push(`Effect: ${EFFECT_LABEL[flag.effect]}.`)
  return notes
}

/** ENVIRONMENT: the variables flags, arguments and configuration keys read. */
const environment = (commands: ReadonlyArray<Command>, spec: Spec): Array<string> => {
  const vars = new Map<string, string>()
  for (const c of commands) {
    for (const f of visibleFlags(c))
      if (f.env !== undefined && !vars.has(f.env)) vars.set(f.env, `Sets ${flagNames(f).join(", ")}.`)
    for (const a of c.args)
      if (a.env !== undefined && !vars.has(a.env))
        vars.set(a.env, `Sets ${argUsage(a)} of ${commandLine(spec, c)}.`)
  }
  for (const p of spec.config?.props ?? [])
    if (p.env !== undefined && !vars.has(p.env)) vars.set(p.env, `Sets the configuration key ${p.key}.`)
  if (vars.size === 0) return []
  return [".SH ENVIRONMENT", ...[...vars].flatMap(([name, what]) => [".TP", bold(name), prose(what)])]
}

/** FILES: the configuration files the program reads, and its configuration keys. */
const files = (spec: Spec): Array<string> => {
  const config = spec.config
  if (config === undefined || config.files.length + config.props.length === 0) return []
  const lines = [".SH FILES"]
  for (const f of config.files)
    lines.push(
      ".TP",
      bold(f.path),
      prose(f.findup === true ? "Searched for upward from the current directory." : "Read when present."),
    )
  for (const p of config.props) {
    const facts = [p.help, p.default === undefined ? undefined : `Default: ${p.default}.`].filter(
      (x) => x !== undefined,
    )
    lines.push(
      ".TP",
      `Key ${bold(p.key)}`,
      prose(facts.length === 0 ? "A configuration key." : sentences(facts)),
    )
  }
  return lines
}

const exitEntry = (exit: ExitCode): Array<string> => [".TP", bold(String(exit.code)), prose(exit.description)]

/** Prose on one line (NAME must be one line). */
const inline = (text: string): string => prose(text.replace(/\s*\n\s*/g, " "))

const sentences = (notes: ReadonlyArray<string | undefined>): string =>
  notes
    .filter((n): n is string => n !== undefined && n.trim() !== "")
    .map((n) => n.trim())
    .map((n) => (/[.!?:]$/.test(n) ? n : `${n}.`))
    .join(" ")

/** Flags with the same canonical names once (a global appears in every command's list). */
const uniqueFlags = (flags: ReadonlyArray<Flag>): ReadonlyArray<Flag> => {
  const seen = new Set<string>()
  return flags.filter((f) => {
    const key = flagNames(f).join(" ")
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Groups items by a key, groups in first-appearance order. */
const groupBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): ReadonlyArray<ReadonlyArray<A>> => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group === undefined) groups.set(k, [item])
    else group.push(item)
  }
  return [...groups.values()]
}
