import type { Choice, Spec } from "../model.js"
import { fishCommand } from "./completion-run.js"
import { type CompletionNode, completionTable, shellIdent, type ValueSource } from "./completion-table.js"
import { allFlagNames, flagNames } from "./flags.js"

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
      const names = node.flags
        .filter((f) => f.flag.arg?.required === true)
        .flatMap((f) => allFlagNames(f.flag))
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
  out.push(
    "# Prints the lines command $argv[2] prints ($argv[1] = 1: value:description, \\: a colon),",
    "# as value<TAB>description.",
    `function ${fn}_run --argument-names descriptions cmd`,
    "    for line in (sh -c $cmd 2>/dev/null)",
    '        test -n "$line"; or continue',
    "        if test $descriptions = 1",
    // In fish's single quotes \\ is one backslash: the regex reads ^((?:[^\\:]|\\.)*):\s*
    "            set line (string replace -r '^((?:[^\\\\\\\\:]|\\\\\\\\.)*):\\s*' '$1\\t' -- $line)",
    "            set line (string replace -a '\\\\:' ':' -- $line)",
    "        end",
    "        printf '%s\\n' $line",
    "    end",
    "end",
    "",
  )
  const completers: Array<string> = []
  for (const node of table) out.push(...commandCompletions(bin, fn, node, completers), "")
  out.push(...completers)
  return out.join("\n")
}

/** The `-a` of a value a `complete` node's command (or the directories) completes. */
const sourceArgs = (
  fn: string,
  source: ValueSource | undefined,
  completers: Array<string>,
): string | undefined => {
  switch (source?.kind) {
    case undefined:
    case "files":
      return undefined
    case "dirs":
      return `-a ${fishQuote("(__fish_complete_directories (commandline -ct))")}`
    case "run": {
      const name = `${fn}_complete_${completers.length}`
      completers.push(
        `function ${name}`,
        "    set -l words (commandline -opc) (commandline -ct)",
        `    ${fn}_run ${source.complete.descriptions ? 1 : 0} ${fishCommand(source.complete.run, fishQuote)}`,
        "end",
        "",
      )
      return `-a ${fishQuote(`(${name})`)}`
    }
  }
}

const commandCompletions = (
  bin: string,
  fn: string,
  node: CompletionNode,
  completers: Array<string>,
): Array<string> => {
  const is = fishQuote(`${fn}_is ${node.id}`)
  const lines: Array<string> = []
  // File names only where a positional takes free text.
  const freeText =
    node.children.length === 0 &&
    node.args.some((a) => a.choices === undefined && (a.value === undefined || a.value.kind === "files"))
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
    for (const name of flagNames(f.flag))
      parts.push(name.startsWith("--") ? `-l ${fishQuote(name.slice(2))}` : `-s ${fishQuote(name.slice(1))}`)
    if (f.help !== undefined) parts.push(`-d ${fishQuote(f.help)}`)
    const arg = f.flag.arg
    if (arg !== undefined) {
      const hasChoices = f.choices !== undefined && f.choices.length > 0
      const source = hasChoices ? undefined : sourceArgs(fn, f.value, completers)
      const offered = hasChoices || source !== undefined
      // -x: a value is required and it is not a file name; -r: a value (files allowed).
      parts.push(arg.required ? (offered ? "-x" : "-r") : offered ? "-f" : "")
      if (hasChoices) parts.push(`-a ${fishQuote(choiceList(f.choices ?? []))}`)
      if (source !== undefined) parts.push(source)
    }
    lines.push(parts.filter((p) => p !== "").join(" "))
    if (f.flag.negate?.startsWith("--") === true)
      lines.push(`complete -c ${bin} -n ${is} -l ${fishQuote(f.flag.negate.slice(2))}`)
  }
  if (node.children.length === 0) {
    node.args.forEach((a, index) => {
      const at = fishQuote(`${fn}_is ${node.id} ${index}${a.arg.variadic ? " more" : ""}`)
      if (a.choices !== undefined && a.choices.length > 0)
        lines.push(`complete -c ${bin} -n ${at} -f -a ${fishQuote(choiceList(a.choices))}`)
      else {
        const source = sourceArgs(fn, a.value, completers)
        if (source !== undefined) lines.push(`complete -c ${bin} -n ${at} -f ${source}`)
      }
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
