import type { Choice, Spec } from "../model.js"
import { type CompletionNode, completionTable, shellIdent } from "./completion-table.js"
import { flagNames } from "./flags.js"

/**
 * A fish completion script. fish describes every candidate, so output names carry their help
 * (`-a 'json\t"One JSON document"'`). Conditions call a generated function that walks the
 * command line the same way as the bash script, so a global flag's choices follow the
 * command being typed.
 */
export const fishCompletion = (spec: Spec): string => {
  const table = completionTable(spec)
  const fn = `__${shellIdent(spec.bin)}`
  const bin = fishQuote(spec.bin)
  const out: Array<string> = [
    `# fish completion for ${spec.bin}, generated from its usage spec.`,
    `# Save it as ~/.config/fish/completions/${spec.bin}.fish`,
    "",
    "# Prints the id of the command being typed, then how many positionals it has so far.",
    `function ${fn}_state`,
    "    set -l words (commandline -opc)",
    "    set -e words[1]",
    "    set -l id 0",
    "    set -l npos 0",
    "    set -l skip 0",
    "    for w in $words",
    "        if test $skip = 1",
    "            set skip 0",
    "            continue",
    "        end",
    '        if test "$w" = "--"',
    "            break",
    "        end",
    "        if string match -q -- '-?*' $w",
    `            ${fn}_takes_value $id $w; and set skip 1`,
    "            continue",
    "        end",
    "        if test $npos = 0",
    `            set -l next (${fn}_sub $id $w)`,
    '            if test -n "$next"',
    "                set id $next",
    "                continue",
    "            end",
    "        end",
    "        set npos (math $npos + 1)",
    "    end",
    "    echo $id",
    "    echo $npos",
    "end",
    "",
    "# Prints the command that word $argv[2] selects under command $argv[1].",
    `function ${fn}_sub --argument-names id word`,
    ...table.flatMap((node) =>
      node.children.map((c) => ifContains(node.id, c.words, `echo ${c.id}\n        return 0`)),
    ),
    "    return 1",
    "end",
    "",
    "# Succeeds when flag $argv[2] of command $argv[1] takes the next word as its value.",
    `function ${fn}_takes_value --argument-names id word`,
    ...table.flatMap((node) => {
      const names = node.flags.filter((f) => f.flag.arg?.required === true).flatMap((f) => flagNames(f.flag))
      return names.length === 0 ? [] : [ifContains(node.id, names, "return 0")]
    }),
    "    return 1",
    "end",
    "",
    "# Succeeds when command $argv[1] is being typed (and, with $argv[2], at that positional;",
    "# with $argv[3] = more, at that one or a later one).",
    `function ${fn}_is --argument-names want pos more`,
    `    set -l state (${fn}_state)`,
    '    test "$state[1]" = "$want"; or return 1',
    '    test -z "$pos"; and return 0',
    '    if test "$more" = more',
    '        test "$state[2]" -ge "$pos"',
    "    else",
    '        test "$state[2]" = "$pos"',
    "    end",
    "end",
    "",
  ]
  for (const node of table) out.push(...commandCompletions(bin, fn, node), "")
  return out.join("\n")
}

const commandCompletions = (bin: string, fn: string, node: CompletionNode): Array<string> => {
  const is = fishQuote(`${fn}_is ${node.id}`)
  const lines: Array<string> = []
  // File names only where a positional takes free text.
  const freeText = node.children.length === 0 && node.args.some((a) => a.choices === undefined)
  if (!freeText) lines.push(`complete -c ${bin} -n ${is} -f`)
  for (const child of node.children) {
    if (child.hidden) continue
    const help = child.help === undefined ? "" : ` -d ${fishQuote(child.help)}`
    lines.push(
      `complete -c ${bin} -n ${fishQuote(`${fn}_is ${node.id} 0`)} -f -a ${fishQuote(token(child.name))}${help}`,
    )
  }
  for (const f of node.flags) {
    if (f.flag.hide) continue
    const parts = [`complete -c ${bin} -n ${is}`]
    for (const s of f.flag.short) parts.push(`-s ${fishQuote(s)}`)
    for (const l of f.flag.long) parts.push(`-l ${fishQuote(l)}`)
    if (f.help !== undefined) parts.push(`-d ${fishQuote(f.help)}`)
    const arg = f.flag.arg
    if (arg !== undefined) {
      const hasChoices = f.choices !== undefined && f.choices.length > 0
      // -x: a value is required and it is not a file name; -r: a value (files allowed).
      parts.push(arg.required ? (hasChoices ? "-x" : "-r") : hasChoices ? "-f" : "")
      if (hasChoices) parts.push(`-a ${fishQuote(choiceList(f.choices ?? []))}`)
    }
    lines.push(parts.filter((p) => p !== "").join(" "))
  }
  if (node.children.length === 0) {
    node.args.forEach((a, index) => {
      if (a.choices === undefined || a.choices.length === 0) return
      const at = fishQuote(`${fn}_is ${node.id} ${index}${a.arg.variadic ? " more" : ""}`)
      lines.push(`complete -c ${bin} -n ${at} -f -a ${fishQuote(choiceList(a.choices))}`)
    })
  }
  return lines
}

/** `if test "$id" = 0; and contains -- "$word" a b; <body>; end`, indented for a function. */
const ifContains = (id: number, words: ReadonlyArray<string>, body: string): string =>
  `    if test "$id" = ${id}; and contains -- "$word" ${words.map(fishQuote).join(" ")}\n        ${body}\n    end`

/**
 * The text of a `-a` argument: fish splits it into words again (expanding escapes), so each
 * candidate is one fish token, `value\tdescription`.
 */
const choiceList = (choices: ReadonlyArray<Choice>): string =>
  choices
    .map((c) =>
      c.help === undefined ? token(c.value) : `${token(c.value)}\\t${token(c.help.replace(/\n/g, " "))}`,
    )
    .join(" ")

/** One fish token: bare when safe, else double-quoted with `\`, `"` and `$` escaped. */
const token = (text: string): string =>
  /^[A-Za-z0-9_.,:/@%+=-]+$/.test(text) ? text : `"${text.replace(/[\\"$]/g, "\\$&")}"`

/**
 * A fish single-quoted string. Inside one only `\\` and `\'` are escapes (any other backslash is
 * kept), so a backslash is doubled only before `\`, `'` or the closing quote; `\t` stays readable.
 */
export const fishQuote = (text: string): string =>
  `'${text.replace(/\\(?=[\\']|$)/g, "\\\\").replace(/'/g, "\\'")}'`
