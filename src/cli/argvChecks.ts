// Checks of the raw arguments that @effect/cli gets wrong: a flag that needs a value but has
// none (`start --group` at the end reads "unknown option --group"; `start --group --delay 1`
// takes `--delay` for the group's name), a missing or unknown subcommand. What they check against
// comes from the command tree (argvTables.ts).
import { closest } from "../domain/suggest.js"
import { argvTables } from "./argvTables.js"
import { REMOTE_GLOBAL_FLAGS } from "./usageSpec/globalFlags.js"
import { RUNS_ALONE } from "./usageSpec/headings.js"

let valueFlagSet: ReadonlySet<string> | undefined

/** Every flag of the CLI that takes a value (`--bump` takes an optional one: not here), the global ones too. */
export const valueFlags = (): ReadonlySet<string> => {
  valueFlagSet ??= new Set([
    ...argvTables().valueFlags,
    ...REMOTE_GLOBAL_FLAGS.flatMap((f) => f.long.map((name) => `--${name}`)),
  ])
  return valueFlagSet
}

/** The commands made of subcommands, and theirs (`config`: `show`, `validate`). */
export const subcommands = (): Readonly<Record<string, ReadonlyArray<string>>> => argvTables().subcommands

/** The shells `--completions` writes a script for (src/cli/completions.ts). */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const

/** `X needs a value` for the first value flag with nothing (or another long flag) after it. */
export const missingValueProblem = (args: ReadonlyArray<string>): string | undefined => {
  if (args[0] === "--completions" && !(COMPLETION_SHELLS as ReadonlyArray<string>).includes(args[1] ?? ""))
    return args[1] === undefined
      ? `--completions needs a shell: ${COMPLETION_SHELLS.join(", ")}`
      : `--completions: unknown shell ${JSON.stringify(args[1])}; one of ${COMPLETION_SHELLS.join(", ")}`
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") return undefined // what follows is a command's, verbatim
    if (!valueFlags().has(arg)) continue
    const next = args[i + 1]
    if (next === undefined || next.startsWith("--"))
      return `${arg} needs a value${next === undefined ? "" : ` (it is followed by ${next})`}`
    i++
  }
  return undefined
}

export { RUNS_ALONE }

/**
 * A missing or unknown subcommand of a command made of them, in words; flags are left alone.
 * (@effect/cli answers `config bogus` with the root's commands and a bare `config` with the
 * root's help, exit 0.)
 */
export const subcommandProblem = (args: ReadonlyArray<string>): string | undefined => {
  const [command, sub] = args
  const table = subcommands()
  const subs = command === undefined || !Object.hasOwn(table, command) ? undefined : table[command]
  if (subs === undefined || sub?.startsWith("-")) return undefined
  const choices = `${subs.join(", ")} (see \`supervisor ${command} --help\`)`
  if (sub === undefined && RUNS_ALONE.has(command!)) return undefined
  if (sub === undefined) return `\`supervisor ${command}\` needs a subcommand: ${choices}`
  if (!subs.includes(sub)) {
    const near = closest(sub, subs)
    const hint = near === undefined ? "" : `did you mean \`${near}\`? `
    return `unknown subcommand \`supervisor ${command} ${sub}\`; ${hint}use one of ${choices}`
  }
  return undefined
}

/**
 * A flag given twice that a command takes once (`logs -n 5 -n 6`: @effect/cli would call the
 * second an unknown option), up to a `--`; `--flag=value` and an attached `-n5` count as the flag.
 */
export const repeatedFlagProblem = (args: ReadonlyArray<string>): string | undefined => {
  const [command, sub] = args
  const key =
    command !== undefined && sub !== undefined && subcommands()[command]?.includes(sub)
      ? `${command} ${sub}`
      : command
  const once =
    key === undefined || !Object.hasOwn(argvTables().onceFlags, key) ? [] : argvTables().onceFlags[key]!
  const flags: Array<string> = [] // the flags typed, each as its bare name
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") break
    if (!arg.startsWith("-")) continue
    const attached = !arg.startsWith("--") && arg.length > 2 && valueFlags().has(arg.slice(0, 2))
    const name = attached ? arg.slice(0, 2) : arg.split("=", 1)[0]!
    flags.push(name)
    if (valueFlags().has(arg)) i++ // its value, whatever it looks like
  }
  for (const names of once) {
    const uses = flags.filter((f) => names.includes(f))
    if (uses.length > 1) return `option ${names.join("/")} is given more than once`
  }
  return undefined
}

/**
 * `-n5` and `-gweb` as `-n 5` and `-g web` (@effect/cli takes them for unknown options), up to a
 * `--` (what follows belongs to a command).
 */
export const withAttachedValues = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === "--") return [...out, ...argv.slice(i)]
    // a short flag that takes a value (`-n`, `-g`) may come with it attached, as in `tail -n5`
    const flag = arg.slice(0, 2)
    if (i >= 2 && arg.length > 2 && !arg.startsWith("--") && valueFlags().has(flag))
      out.push(flag, arg.slice(2))
    else out.push(arg)
  }
  return out
}
