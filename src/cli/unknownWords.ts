// An unknown command or flag, in the one `error:` form of every usage error, with the closest
// match: `supervisor stats` (did you mean `status`?), `start web --forse` (did you mean
// `--force`?). Checked on the raw arguments before @effect/cli parses them: it answers an unknown
// command with a bare list of every command, and repeated IDs swallow an unknown flag (EFFECT-V3
// §7), which the actions then report without the closest match or the help to read.
import { closest } from "../domain/suggest.js"
import { ALIASES } from "./aliases.js"
import { valueFlags } from "./argvChecks.js"
import { argvTables } from "./argvTables.js"
import { COMPLETE_COMMAND } from "./complete.js"
import { OPTIONAL_VALUE } from "./portFlags.js"
import { CD_COMMAND } from "./shell.js"

/** What every command takes besides its own flags (@effect/cli's `--help`); the program: `--version`. */
const GLOBAL_FLAGS = ["--help", "-h"]
const PROGRAM_FLAGS = ["--version", "--completions"]

const seeHelp = (words: ReadonlyArray<string>) => `(see \`${["supervisor", ...words].join(" ")} --help\`)`

const didYouMean = (near: string | undefined) => (near === undefined ? "" : `; did you mean \`${near}\`?`)

/**
 * The closest command to `word`: a command or an alias (as the command it stands for), else a
 * nested command by its full name (`show` → `config show`).
 */
export const closestCommand = (word: string): string | undefined => {
  const tables = argvTables()
  const candidates = new Map<string, string>()
  for (const c of tables.commands) if (c !== COMPLETE_COMMAND && c !== CD_COMMAND) candidates.set(c, c)
  for (const [alias, command] of Object.entries(ALIASES)) candidates.set(alias, command)
  for (const [parent, subs] of Object.entries(tables.subcommands))
    for (const sub of subs) if (!candidates.has(sub)) candidates.set(sub, `${parent} ${sub}`)
  const near = closest(word, [...candidates.keys()])
  return near === undefined ? undefined : candidates.get(near)
}

/** `unknown option --x`, with the closest long flag the command takes. */
const unknownFlag = (flag: string, words: ReadonlyArray<string>, known: ReadonlyArray<string>) => {
  const near = flag.startsWith("--")
    ? closest(
        flag,
        known.filter((k) => k.startsWith("--")),
      )
    : undefined
  return `unknown option ${flag}${didYouMean(near)} ${seeHelp(words)}`
}

/** An unknown command, or an unknown flag in the command's place; undefined when the first word is fine. */
export const commandProblem = (args: ReadonlyArray<string>): string | undefined => {
  const [first] = args
  if (first === undefined || first === "--") return undefined
  const tables = argvTables()
  if (first.startsWith("-")) {
    const flags = [...GLOBAL_FLAGS, ...PROGRAM_FLAGS, ...(tables.commandFlags[""] ?? [])]
    const name = first.split("=", 1)[0]!
    return flags.includes(name) ? undefined : unknownFlag(name, [], flags)
  }
  if (tables.commands.includes(first)) return undefined
  return `unknown command \`${first}\`${didYouMean(closestCommand(first))} ${seeHelp([])}`
}

/** Whether `arg` is a cluster of the command's short boolean flags (`-fq`), or `-n5`. */
const knownShort = (arg: string, known: ReadonlyArray<string>) => {
  const first = arg.slice(0, 2)
  if (known.includes(first) && valueFlags().has(first)) return true // a value attached: `-n5`
  return [...arg.slice(1)].every((c) => known.includes(`-${c}`) && !valueFlags().has(`-${c}`))
}

/**
 * The first flag, up to a `--`, that the command named by the first words does not take (values
 * of value flags are skipped: `--grep -x` is a search). Run after the subcommand checks.
 */
export const unknownFlagProblem = (args: ReadonlyArray<string>): string | undefined => {
  const tables = argvTables()
  const [command, sub] = args
  if (command === undefined || !tables.commands.includes(command)) return undefined
  const words = sub !== undefined && tables.subcommands[command]?.includes(sub) ? [command, sub] : [command]
  const known = [...GLOBAL_FLAGS, ...(tables.commandFlags[words.join(" ")] ?? [])]
  for (let i = words.length; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") return undefined
    if (!arg.startsWith("-") || arg === "-") continue
    const name = arg.startsWith("--") ? arg.split("=", 1)[0]! : arg
    if (known.includes(name)) {
      const next = args[i + 1] ?? ""
      if (valueFlags().has(name)) i++
      // `--bump` takes a value when one follows (a negative one is a bad value: portFlags.ts)
      else if (name === `--${OPTIONAL_VALUE.flag}` && /^(-?\d+|true|false)$/.test(next)) i++
      continue
    }
    if (!arg.startsWith("--") && knownShort(arg, known)) continue
    return unknownFlag(name, words, known)
  }
  return undefined
}
