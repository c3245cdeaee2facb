import type { Spec } from "../model.js"
import { bashCommand } from "./completion-run.js"
import {
  type CompletionNode,
  completionTable,
  shellIdent,
  shQuote,
  type ValueSource,
} from "./completion-table.js"
import { allFlagNames, flagNames } from "./flags.js"

/**
 * A bash completion script. Bash shows no descriptions, so it offers bare words: subcommands,
 * flags, a flag's choices (after `--format `, `--format=` in either word-break setting) and a
 * positional argument's choices, or what a `complete` node's command prints (the value part of
 * its `value:description` lines). The command line is walked word by word so a global flag's
 * value before the subcommand is skipped and the choices come from the command being typed.
 */
export const bashCompletion = (spec: Spec): string => {
  const table = completionTable(spec)
  const fn = `__${shellIdent(spec.bin)}`
  const words = `${fn}_words`
  const lines: Array<string> = [
    `# bash completion for ${spec.bin}, generated from its usage spec.`,
    `# Load it with "source FILE", or save it as`,
    `# ~/.local/share/bash-completion/completions/${spec.bin}`,
    "",
    `# Sets REPLY to the command that word $2 selects under command $1.`,
    `${fn}_sub() {`,
    ...caseBlock(
      table.flatMap((node) =>
        node.children.map((child) => ({
          patterns: child.words.map((w) => `${node.id}:${w}`),
          body: `REPLY=${child.id}`,
        })),
      ),
    ),
    "  return 0",
    "}",
    "",
    `# Succeeds when flag $2 of command $1 takes the next word as its value.`,
    `${fn}_takes_value() {`,
    ...caseBlock(
      table.flatMap((node) =>
        node.flags
          .filter((f) => f.flag.arg?.required === true)
          .map((f) => ({ patterns: allFlagNames(f.flag).map((n) => `${node.id}:${n}`), body: "return 0" })),
      ),
    ),
    "}",
    "",
    `# Each of these sets ${words} and fails when there is nothing to offer.`,
    `${fn}_subs() {`,
    ...caseBlock(
      table
        .map((node) => ({ node, names: node.children.filter((c) => !c.hidden).map((c) => c.name) }))
        .filter(({ names }) => names.length > 0)
        .map(({ node, names }) => ({ patterns: [`${node.id}:`], body: assign(words, names) })),
    ),
    "  return 0",
    "}",
    `${fn}_flags() {`,
    ...caseBlock(
      table
        .map((node) => ({
          node,
          names: node.flags
            .filter((f) => !f.flag.hide)
            .flatMap((f) =>
              longFirst([...flagNames(f.flag), ...(f.flag.negate === undefined ? [] : [f.flag.negate])]),
            ),
        }))
        .filter(({ names }) => names.length > 0)
        .map(({ node, names }) => ({ patterns: [`${node.id}:`], body: assign(words, names) })),
    ),
    "  return 0",
    "}",
    `${fn}_values() {`,
    ...caseBlock(
      table.flatMap((node) =>
        node.flags.flatMap((f) => {
          const body =
            f.choices !== undefined && f.choices.length > 0
              ? assign(
                  words,
                  f.choices.map((c) => c.value),
                )
              : valueBody(fn, words, f.value)
          return body === undefined
            ? []
            : [{ patterns: allFlagNames(f.flag).map((n) => `${node.id}:${n}`), body }]
        }),
      ),
    ),
    "  return 0",
    "}",
    `${fn}_args() {`,
    ...caseBlock(table.flatMap(argEntries(words))),
    "  return 0",
    "}",
    "",
    `# Sets ${words} to the lines command $2 prints ($1=1: value:description lines, \\: a colon).`,
    `${fn}_run() {`,
    "  local line",
    `  ${words}=()`,
    "  while IFS= read -r line; do",
    "    if (($1)); then",
    `      line=\${line//\\\\:/$'\\x01'}`,
    `      line=\${line%%:*}`,
    `      line=\${line//$'\\x01'/:}`,
    `      line=\${line#"\${line%%[![:space:]]*}"}`,
    `      line=\${line%"\${line##*[![:space:]]}"}`,
    "    fi",
    `    [[ -n $line ]] && ${words}+=("$line")`,
    '  done < <(sh -c "$2" 2>/dev/null)',
    "  return 0",
    "}",
    "",
    `# Adds the words starting with $2 to COMPREPLY, each prefixed with $1.`,
    `${fn}_reply() {`,
    "  local w",
    `  for w in "\${${words}[@]}"; do`,
    `    [[ $w == "$2"* ]] && COMPREPLY+=("$1$w")`,
    "  done",
    "  # Known words were offered: no fallback to file names.",
    `  if ((\${#${words}[@]})); then compopt +o default 2>/dev/null || true; fi`,
    "}",
    "",
    `_${shellIdent(spec.bin)}() {`,
    `  local cur=\${COMP_WORDS[COMP_CWORD]} id=0 npos=0 skip=0 dashdash=0 i w flag= prefix=`,
    "  local -a candidates=()",
    "  COMPREPLY=()",
    `  ${words}=()`,
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    `    w=\${COMP_WORDS[i]}`,
    "    if ((skip)); then",
    "      # With '=' in COMP_WORDBREAKS, --format=json arrives as: --format = json",
    "      [[ $w == = ]] || skip=0",
    "      continue",
    "    fi",
    "    if ((!dashdash)); then",
    "      case $w in",
    "        --) dashdash=1; continue ;;",
    "        =) skip=1; continue ;;",
    "        --*=*) continue ;;",
    `        -?*) ${fn}_takes_value "$id" "$w" && skip=1; continue ;;`,
    "      esac",
    `      if ((npos == 0)) && ${fn}_sub "$id" "$w"; then id=$REPLY; continue; fi`,
    "    fi",
    "    npos=$((npos + 1))",
    "  done",
    "  if ((skip)); then",
    `    flag=\${COMP_WORDS[COMP_CWORD - 1]}`,
    `    [[ $flag == = ]] && flag=\${COMP_WORDS[COMP_CWORD - 2]}`,
    "    [[ $cur == = ]] && cur=",
    "  elif ((!dashdash)) && [[ $cur == --*=* ]]; then",
    `    flag=\${cur%%=*} prefix=\${cur%%=*}= cur=\${cur#*=}`,
    "  elif ((!dashdash && COMP_CWORD > 1)) && [[ $cur == = ]]; then",
    `    flag=\${COMP_WORDS[COMP_CWORD - 1]} cur=`,
    "  fi",
    "  if [[ -n $flag ]]; then",
    `    ${fn}_values "$id" "$flag" && ${fn}_reply "$prefix" "$cur"`,
    "    return 0",
    "  fi",
    "  if ((!dashdash)) && [[ $cur == -* ]]; then",
    `    ${fn}_flags "$id" && ${fn}_reply "" "$cur"`,
    "    return 0",
    "  fi",
    `  if ((!dashdash && npos == 0)) && ${fn}_subs "$id"; then candidates=("\${${words}[@]}"); fi`,
    `  ${words}=()`,
    `  if ${fn}_args "$id" "$npos"; then candidates+=("\${${words}[@]}"); fi`,
    `  ${words}=("\${candidates[@]}")`,
    `  ${fn}_reply "" "$cur"`,
    "}",
    "",
    `complete -o default -F _${shellIdent(spec.bin)} ${spec.bin}`,
    "",
  ]
  return lines.join("\n")
}

/**
 * `case "$1:$2" in '0:a' | '0:b') body ;; *) return 1 ;; esac`, indented for a function body;
 * functions called with one argument match `id:`.
 */
const caseBlock = (
  entries: ReadonlyArray<{ patterns: ReadonlyArray<string>; body: string }>,
): Array<string> => [
  '  case "$1:$2" in',
  ...entries.map((e) => `    ${e.patterns.map(patternQuote).join(" | ")}) ${e.body} ;;`),
  "    *) return 1 ;;",
  "  esac",
]

/** Quotes a pattern so it matches literally, except a trailing `*` (any later argument index). */
const patternQuote = (pattern: string): string =>
  pattern.endsWith(":*") ? `${shQuote(pattern.slice(0, -1))}*` : shQuote(pattern)

const assign = (name: string, values: ReadonlyArray<string>): string =>
  `${name}=(${values.map(shQuote).join(" ")})`

const longFirst = (names: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...names.filter((n) => n.startsWith("--")),
  ...names.filter((n) => !n.startsWith("--")),
]

/** Choices of the positional at each index; a variadic last argument answers every later index. */
const argEntries =
  (words: string) =>
  (node: CompletionNode): ReadonlyArray<{ patterns: ReadonlyArray<string>; body: string }> => {
    const fn = words.replace(/_words$/, "")
    if (!node.args.some((a) => (a.choices !== undefined && a.choices.length > 0) || a.value !== undefined))
      return []
    return node.args.map((a, index) => ({
      patterns: [a.arg.variadic ? `${node.id}:*` : `${node.id}:${index}`],
      body:
        a.choices === undefined || a.choices.length === 0
          ? (valueBody(fn, words, a.value) ?? "return 1")
          : assign(
              words,
              a.choices.map((c) => c.value),
            ),
    }))
  }

/** What sets the words of a value with no choices: a completer's output, or directory names. */
const valueBody = (fn: string, words: string, source: ValueSource | undefined): string | undefined => {
  switch (source?.kind) {
    case undefined:
      return undefined
    case "files":
      return "return 1" // bash's own file names (complete -o default)
    case "dirs":
      return `mapfile -t ${words} < <(compgen -d -- "$cur")`
    case "run":
      return `${fn}_run ${source.complete.descriptions ? 1 : 0} ${bashCommand(source.complete.run)}`
  }
}
