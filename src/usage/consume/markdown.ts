import type { Command, Config, Spec } from "../model.js"
import { argUsage, commandLine, longHelp, shortHelp, usageLine, visibleSubcommands } from "./commands.js"
import { flagChoices, flagLabel, selectorArgv, visibleFlags } from "./flags.js"
import { argNotes, EFFECT_LABEL, flagNotes, type Note } from "./notes.js"
import { prettySchema } from "./schema-text.js"

/**
 * A Markdown reference for `docs/cli/`: `index.md` documents the program itself (global flags,
 * the command list, outputs and exit statuses) and links to one file per visible top-level
 * command, which holds that command and all its visible descendants (nested headings), so a
 * reader of one area finds everything in one page and the index stays short.
 *
 * Returns file names (relative, `/`-free) mapped to their content, in link order.
 */
export const markdownDocs = (spec: Spec): ReadonlyMap<string, string> => {
  const files = new Map<string, string>()
  const top = visibleSubcommands(spec.root)
  const fileOf = new Map<Command, string>(top.map((c) => [c, fileName(c.name)]))
  const link = (from: Command, to: Command): string => {
    const file = fileOf.get(to)
    if (from === spec.root && file !== undefined) return file
    return `#${anchor(commandLine(spec, to))}`
  }
  files.set("index.md", document(spec, spec.root, link))
  for (const command of top) files.set(fileOf.get(command)!, document(spec, command, link))
  return files
}

/** The file of a top-level command; `index` is taken by the program's own page. */
const fileName = (name: string): string => `${name === "index" ? "index-command" : name}.md`

type Linker = (from: Command, to: Command) => string

/** A command's page: its section, then its visible descendants one heading level deeper each. */
const document = (spec: Spec, command: Command, link: Linker): string => {
  const blocks: Array<string> = []
  const visit = (c: Command, level: number): void => {
    blocks.push(...commandSection(spec, c, level, link))
    // The root page only lists the top-level commands: each has its own file.
    if (c === spec.root) return
    for (const sub of visibleSubcommands(c)) visit(sub, Math.min(level + 1, 5))
  }
  visit(command, 1)
  return `${blocks.join("\n\n")}\n`
}

const commandSection = (spec: Spec, command: Command, level: number, link: Linker): Array<string> => {
  const h = "#".repeat(level)
  const sub = "#".repeat(level + 1)
  const isRoot = command === spec.root
  const blocks: Array<string> = [`${h} ${code(commandLine(spec, command) || "(program)")}`]
  const before = command.before_long_help ?? command.before_help
  if (before !== undefined) blocks.push(before.trim())
  const description = isRoot ? (spec.long_about ?? spec.about ?? longHelp(command)) : longHelp(command)
  if (description !== undefined) blocks.push(description.trim())
  const after = command.after_long_help ?? command.after_help
  if (after !== undefined) blocks.push(after.trim())
  if (command.deprecated !== undefined) blocks.push(`**Deprecated:** ${command.deprecated}`)
  if (command.effect !== undefined) blocks.push(`Effect: ${EFFECT_LABEL[command.effect]}.`)
  if (isRoot && spec.version !== undefined) blocks.push(`Version ${spec.version}.`)
  if (command.aliases.length > 0) blocks.push(`Aliases: ${command.aliases.map(code).join(", ")}`)
  blocks.push(
    `${sub} Usage`,
    fence(isRoot && spec.usage !== undefined ? spec.usage : usageLine(spec, command), ""),
  )

  const args = command.args.filter((a) => a.hide !== true)
  if (args.length > 0) {
    blocks.push(
      `${sub} Arguments`,
      table(
        ["Argument", "Description"],
        args.map((arg) => [code(argUsage(arg)), joinNotes(argNotes(arg).map(inlineCode))]),
      ),
    )
  }

  const flags = visibleFlags(command)
  if (flags.length > 0) {
    blocks.push(
      `${sub} Flags`,
      table(
        ["Flag", "Description"],
        flags.map((flag) => [
          code(flagLabel(flag)),
          joinNotes(flagNotes(flag, flagChoices(command, flag)).map(inlineCode)),
        ]),
      ),
    )
  }

  const subs = visibleSubcommands(command)
  if (subs.length > 0) {
    blocks.push(`${sub} Commands`)
    // one table per `help_heading`, under it in bold, when the commands have headings
    const headings = [...new Set(subs.map((c) => c.help_heading))]
    for (const heading of headings) {
      if (headings.length > 1) blocks.push(`**${heading ?? "Commands"}**`)
      blocks.push(
        table(
          ["Command", "Description"],
          subs
            .filter((c) => c.help_heading === heading)
            .map((c) => [`[${code(c.name)}](${link(command, c)})`, shortHelp(c) ?? ""]),
        ),
      )
    }
  }

  if (command.outputs.length > 0) {
    blocks.push(
      `${sub} Output Formats`,
      table(
        ["Name", "Default", "Select", "Framing", "Media type", "Description"],
        command.outputs.map((o) => [
          code(o.name),
          o.default ? "yes" : "",
          o.selector === null ? "" : code(selectorArgv(o.selector)),
          o.framing,
          o.media_type === undefined ? "" : code(o.media_type),
          o.help ?? "",
        ]),
      ),
    )
    for (const o of command.outputs) {
      if (o.schema === undefined) continue
      const pretty = prettySchema(o.schema)
      blocks.push(
        `Schema of the ${code(o.name)} output${pretty === undefined ? " (not valid JSON; shown verbatim)" : ""}:`,
        [
          "<details><summary>Schema</summary>",
          "",
          pretty === undefined ? fence(o.schema, "") : fence(pretty, "json"),
          "",
          "</details>",
        ].join("\n"),
      )
    }
  }

  if (command.mounts !== undefined) {
    blocks.push(
      `${sub} Mounted Commands`,
      `More subcommands are read at run time from the usage spec these commands print: ${command.mounts.map((m) => code(m.run)).join(", ")}.`,
    )
  }

  if (isRoot && spec.config !== undefined) blocks.push(...configSection(spec.config, sub))

  if (command.exit_codes.length > 0) {
    blocks.push(
      `${sub} Exit Status`,
      table(
        ["Code", "Meaning"],
        command.exit_codes.map((e) => [String(e.code), e.description]),
      ),
    )
  }

  if (command.examples.length > 0) {
    blocks.push(`${sub} Examples`)
    for (const example of command.examples) {
      if (example.header !== undefined) blocks.push(`**${example.header}**`)
      if (example.help !== undefined) blocks.push(example.help)
      blocks.push(fence(example.code, example.lang ?? "sh"))
    }
  }
  return blocks
}

/** A GitHub-style heading anchor for a heading that is one code span: `demo daemons list` → `demo-daemons-list`. */
const anchor = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [
    `| ${header.map(cell).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n")

/**
 * A table cell: a `|` would end the cell (also inside a code span, where GFM still honours
 * `\|`) and a newline would end the row, so they become `\|` and `<br>`.
 */
export const cell = (text: string): string => text.trim().replace(/\r?\n/g, "<br>").replace(/\|/g, "\\|")

/** An inline code span, with a longer backtick run when the text itself holds backticks. */
const code = (text: string): string => {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = "`".repeat(longest + 1)
  const pad = longest > 0 ? " " : ""
  return `${ticks}${pad}${text}${pad}${ticks}`
}

/** A fenced block whose fence is longer than any backtick run inside it. */
const fence = (content: string, lang: string): string => {
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length))
  const ticks = "`".repeat(Math.max(3, longest + 1))
  return `${ticks}${lang}\n${content.replace(/\n$/, "")}\n${ticks}`
}

/** A note with its literal parts (flag names, values, variables) as code spans. */
const inlineCode = (note: Note): string =>
  note.map((part) => (typeof part === "string" ? part : code(part.code))).join("")

/** The program's configuration: the files it reads and the keys it knows. */
const configSection = (config: Config, sub: string): Array<string> => {
  const blocks = [`${sub} Configuration`]
  if (config.files.length > 0)
    blocks.push(
      `Read from, in order: ${config.files
        .map(
          (f) =>
            `${code(f.path)}${f.findup === true ? " (searched upward)" : ""}${f.format === undefined ? "" : ` (${f.format})`}`,
        )
        .join(", ")}.`,
    )
  const keys = [
    ...config.props.map((p) => [
      code(p.key),
      joinNotes([
        p.long_help ?? p.help,
        (p.type ?? p.data_type) === undefined ? undefined : `Type: ${p.type ?? p.data_type}.`,
        p.env === undefined ? undefined : `Environment: ${code(p.env)}.`,
        p.default === undefined
          ? undefined
          : `Default: ${code(p.default)}${p.default_note === undefined ? "" : ` (${p.default_note})`}.`,
      ]),
    ]),
    ...config.defaults
      .filter((d) => !config.props.some((p) => p.key === d.key))
      .map((d) => [code(d.key), `Default: ${code(d.value)}.`]),
  ]
  if (keys.length > 0) blocks.push(table(["Key", "Description"], keys))
  if (config.aliases.length > 0)
    blocks.push(`Aliases: ${config.aliases.map((a) => `${code(a.alias)} for ${code(a.key)}`).join(", ")}.`)
  return blocks
}

const joinNotes = (notes: ReadonlyArray<string | undefined>): string =>
  notes
    .filter((n): n is string => n !== undefined && n.trim() !== "")
    .map((n) => n.trim())
    // Notes are sentences run together in one cell: end each one.
    .map((n) => (/[.!?:]$/.test(n) ? n : `${n}.`))
    .join(" ")
