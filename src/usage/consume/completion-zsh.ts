import type { Choice, Spec } from "../model.js"
import { zshCommand } from "./completion-run.js"
import {
  type CompletionFlag,
  type CompletionNode,
  completionTable,
  shellIdent,
  shQuote,
  type ValueSource,
} from "./completion-table.js"
import { flagNames, valueName } from "./flags.js"

/**
 * A zsh completion script: one `_arguments` call per command (so each command's own choices
 * for a shared global `--format` apply), subcommands and values offered through `_describe`
 * so zsh shows each output name beside its help, and a `complete` node's command run for the
 * values it completes (its `value:description` lines shown as such).
 */
export const zshCompletion = (spec: Spec): string => {
  const table = completionTable(spec)
  const prefix = `_${shellIdent(spec.bin)}`
  const out: Array<string> = [
    `#compdef ${spec.bin}`,
    `# zsh completion for ${spec.bin}, generated from its usage spec.`,
    "",
  ]
  for (const node of table) out.push(...commandFunction(spec, prefix, node))
  out.push(
    "# Offers the lines command $2 prints ($1=1: they are value:description).",
    `${prefix}_run() {`,
    "  local -a values",
    "  local line",
    `  for line in "\${(@f)$(sh -c "$2" 2>/dev/null)}"; do`,
    "    [[ -z $line ]] && continue",
    `    if (( $1 )); then values+=("$line"); else values+=("\${line//:/\\\\:}"); fi`,
    "  done",
    "  _describe -t values value values",
    "}",
    "",
    `${prefix}() {`,
    "  # The whole line, for completers' {{words[...]}}: _arguments narrows $words per command.",
    `  local -a ${prefix}_line=("\${words[@]}")`,
    `  local ${prefix}_at=$CURRENT`,
    `  ${prefix}_c0 "$@"`,
    "}",
    "",
    // Run directly when autoloaded from $fpath; register when sourced.
    `if [[ $zsh_eval_context[-1] == loadautofunc ]]; then`,
    `  ${prefix} "$@"`,
    "else",
    `  compdef ${prefix} ${spec.bin}`,
    "fi",
    "",
  )
  return out.join("\n")
}

const commandFunction = (spec: Spec, prefix: string, node: CompletionNode): Array<string> => {
  const fn = `${prefix}_c${node.id}`
  const helpers: Array<string> = []
  const specs: Array<string> = []
  node.flags.forEach((f, index) => {
    if (f.flag.hide) return
    const action = valueAction(prefix, f, `${fn}_f${index}`, helpers)
    specs.push(...flagSpecs(f, action))
  })
  const visibleChildren = node.children.filter((c) => !c.hidden)
  if (node.children.length > 0) {
    specs.push(`'1: :${fn}_commands'`, `'*:: :->args'`)
    helpers.push(
      `${fn}_commands() {`,
      "  local -a commands=(",
      ...visibleChildren.map((c) => `    ${shQuote(describeItem(c.name, c.help))}`),
      "  )",
      `  _describe -t commands ${shQuote(`${[spec.bin, ...node.command.path].join(" ")} command`)} commands`,
      "}",
      "",
    )
  } else {
    node.args.forEach((a, index) => {
      const message = escapeMessage(a.arg.help ?? a.arg.name)
      const action =
        a.choices === undefined || a.choices.length === 0
          ? sourceAction(prefix, `${fn}_a${index}`, a.value, helpers)
          : describeFunction(`${fn}_a${index}`, a.arg.name, a.choices, helpers)
      const lead = a.arg.variadic ? "*:" : a.arg.required ? ":" : "::"
      specs.push(shQuote(`${lead}${message}:${action}`))
    })
  }
  // With subcommands, `-A '-*'` ends this command's options at the subcommand's name: otherwise
  // `_arguments` also parses the words after it, and completes `demo daemons list --format `
  // with this command's `--format` choices (the same global flag) instead of `list`'s own.
  const call = node.children.length > 0 ? "_arguments -C -s -S -A '-*'" : "_arguments -C -s -S"
  const lines = [
    `${fn}() {`,
    '  local curcontext="$curcontext" state line ret=1',
    "  typeset -A opt_args",
    specs.length === 0 ? `  ${call} && ret=0` : `  ${call} \\`,
    ...specs.map((s, i) => `    ${s}${i === specs.length - 1 ? " && ret=0" : " \\"}`),
  ]
  if (node.children.length > 0) {
    lines.push(
      "  case $state in",
      "    args)",
      `      curcontext="\${curcontext%:*:*}:${spec.bin}-$line[1]:"`,
      "      case $line[1] in",
      ...node.children.map(
        (c) => `        ${c.words.map(shQuote).join("|")}) ${prefix}_c${c.id} && ret=0 ;;`,
      ),
      "      esac",
      "      ;;",
      "  esac",
    )
  }
  lines.push("  return ret", "}", "", ...helpers)
  return lines
}

/** The `_arguments` specs of one flag: one per name, mutually exclusive unless repeatable. */
const flagSpecs = (f: CompletionFlag, action: string): Array<string> => {
  const names = flagNames(f.flag)
  const exclusion = f.flag.variadic ? "*" : names.length > 1 ? `(${names.join(" ")})` : ""
  const help = f.help === undefined ? "" : `[${escapeHelp(f.help)}]`
  const arg = f.flag.arg
  const value = valueName(f.flag) ?? "VALUE"
  return names.map((name) => {
    const long = name.startsWith("--")
    if (arg === undefined) return shQuote(`${exclusion}${name}${help}`)
    // Required: `--format json`/`--format=json`, `-f json`/`-fjson`; optional: attached only.
    const suffix = arg.required ? (long ? "=" : "+") : long ? "=-" : "-"
    const colons = arg.required ? ":" : "::"
    return shQuote(`${exclusion}${name}${suffix}${help}${colons}${escapeMessage(value)}:${action}`)
  })
}

/** The action completing a flag's value: its choices with help, a completer, else zsh's default. */
const valueAction = (prefix: string, f: CompletionFlag, fn: string, helpers: Array<string>): string =>
  f.choices === undefined || f.choices.length === 0
    ? sourceAction(prefix, fn, f.value, helpers)
    : describeFunction(fn, valueName(f.flag) ?? "value", f.choices, helpers)

/** Files, directories, a function running a `complete` node's command, or zsh's default. */
const sourceAction = (
  prefix: string,
  fn: string,
  source: ValueSource | undefined,
  helpers: Array<string>,
): string => {
  switch (source?.kind) {
    case undefined:
      return "_default"
    case "files":
      return "_files"
    case "dirs":
      return "_files -/"
    case "run":
      helpers.push(
        `${fn}() {`,
        `  ${prefix}_run ${source.complete.descriptions ? 1 : 0} ${zshCommand(source.complete.run, prefix)}`,
        "}",
        "",
      )
      return fn
  }
}

/** Adds a function offering `choices` as `value:help` pairs through `_describe`; returns its name. */
const describeFunction = (
  fn: string,
  what: string,
  choices: ReadonlyArray<Choice>,
  helpers: Array<string>,
): string => {
  helpers.push(
    `${fn}() {`,
    "  local -a values=(",
    ...choices.map((c) => `    ${shQuote(describeItem(c.value, c.help))}`),
    "  )",
    `  _describe -t values ${shQuote(what)} values`,
    "}",
    "",
  )
  return fn
}

/** A `_describe` item: `value:help`, with colons in the value escaped. */
const describeItem = (value: string, help: string | undefined): string => {
  const escaped = value.replace(/\\/g, "\\\\").replace(/:/g, "\\:")
  return help === undefined ? escaped : `${escaped}:${help.replace(/\n/g, " ")}`
}

/** Text inside `[...]` of an option spec. */
const escapeHelp = (help: string): string => help.replace(/\n/g, " ").replace(/[\\[\]]/g, "\\$&")

/** The message field between colons of a spec. */
const escapeMessage = (text: string): string => text.replace(/\n/g, " ").replace(/[\\:]/g, "\\$&")
