import type { Arg, Choice, Command, Flag, Spec } from "../model.js"
import { commandLine, visibleSubcommands } from "./commands.js"
import { canonicalName, commandFlags, flagChoices, flagHasName } from "./flags.js"

/**
 * The checks `validateArgv` runs once the command a line names is known: positionals against
 * the command's arguments, flag values against their choices, and the relations the spec
 * declares (required flags, a required subcommand, `conflicts`, `exclusive`).
 */

/** One flag occurrence, kept until the final command is known. */
export interface Given {
  readonly flag: Flag
  /** The name as typed (`-f`, `--format`), for messages. */
  readonly typed: string
  readonly value: string | undefined
}

/** How many positionals a command accepts (Infinity with a variadic argument). */
export const maxPositionals = (command: Command): number =>
  command.args.some((a) => a.variadic) ? Number.POSITIVE_INFINITY : command.args.length

/** The argument the positional at `index` fills (a variadic last one takes every later index). */
export const argAt = (command: Command, index: number): Arg | undefined => {
  const arg = command.args[index]
  if (arg !== undefined) return arg
  const last = command.args.at(-1)
  return last?.variadic === true ? last : undefined
}

/** Every value a list of choices accepts: hidden ones and aliases too. */
const accepted = (choices: ReadonlyArray<Choice>): ReadonlyArray<string> =>
  choices.flatMap((c) => [c.value, ...(c.aliases ?? []).map((a) => a.value)])

/** How a value's choices are checked (`choices ignore_case= strict= env=`). */
interface ChoiceRules {
  readonly ignore_case?: boolean | undefined
  readonly choices_strict?: boolean | undefined
  readonly choices_env?: string | undefined
}

/** The values `choices env="VAR"` adds: VAR's words, split on commas and whitespace. */
const envChoices = (rules: ChoiceRules): ReadonlyArray<Choice> =>
  rules.choices_env === undefined
    ? []
    : (process.env[rules.choices_env] ?? "")
        .split(/[\s,]+/)
        .filter((v) => v !== "")
        .map((value) => ({ value }))

/** Whether `word` is accepted; `strict=#false` accepts any word. */
const matches = (choices: ReadonlyArray<Choice>, word: string, rules: ChoiceRules): boolean =>
  rules.choices_strict === false ||
  accepted([...choices, ...envChoices(rules)]).some((v) =>
    rules.ignore_case === true ? v.toLowerCase() === word.toLowerCase() : v === word,
  )

const shown = (choices: ReadonlyArray<Choice>, rules: ChoiceRules = {}): string =>
  [...choices, ...envChoices(rules)]
    .filter((c) => c.hide !== true)
    .map((c) => c.value)
    .join(", ")

export const checkPositionals = (
  spec: Spec,
  command: Command,
  positionals: ReadonlyArray<string>,
  dashDashAt: number,
  helpRequested: boolean,
): ReadonlyArray<string> => {
  const errors: Array<string> = []
  const subs = visibleSubcommands(command)
  if (command.args.length === 0 && subs.length > 0 && positionals[0] !== undefined) {
    const known = subs.map((s) => s.name).join(", ")
    return [`unknown command "${positionals[0]}" for "${commandLine(spec, command)}" (known: ${known})`]
  }
  const counts = new Map<Arg, number>()
  positionals.forEach((word, index) => {
    const arg = argAt(command, index)
    if (arg === undefined) {
      errors.push(`unexpected argument "${word}"`)
      return
    }
    counts.set(arg, (counts.get(arg) ?? 0) + 1)
    if (arg.double_dash === "required" && index < dashDashAt) {
      errors.push(`<${arg.name}>: "${word}" must come after -- (${commandLine(spec, command)} -- ${word})`)
    }
    if (arg.choices !== undefined && !matches(arg.choices, word, arg)) {
      errors.push(`<${arg.name}>: "${word}" is not one of: ${shown(arg.choices, arg)}`)
    }
  })
  for (const [arg, count] of counts) {
    if (arg.var_max !== undefined && count > arg.var_max)
      errors.push(`<${arg.name}>: at most ${arg.var_max} value${arg.var_max === 1 ? "" : "s"}, got ${count}`)
  }
  if (!helpRequested) {
    command.args.forEach((arg, index) => {
      const count = counts.get(arg) ?? 0
      if (arg.required && positionals.length <= index) errors.push(`missing required argument <${arg.name}>`)
      else if (arg.var_min !== undefined && count < arg.var_min && (arg.required || count > 0))
        errors.push(
          `<${arg.name}>: at least ${arg.var_min} value${arg.var_min === 1 ? "" : "s"}, got ${count}`,
        )
    })
  }
  return errors
}

/** A flag given more than once is an error unless it repeats (`var`, `count`) or overrides itself. */
const repeats = (flag: Flag): boolean =>
  flag.variadic || flag.count === true || (flag.overrides ?? []).some((o) => flagHasName(flag, o))

export const checkFlagValues = (command: Command, given: ReadonlyArray<Given>): ReadonlyArray<string> => {
  const errors: Array<string> = []
  const counts = new Map<Flag, number>()
  for (const g of given) {
    counts.set(g.flag, (counts.get(g.flag) ?? 0) + 1)
    if (g.value === undefined) continue
    const choices = g.flag.arg?.choices ?? flagChoices(command, g.flag)
    const rules = g.flag.arg ?? {}
    if (choices !== undefined && !matches(choices, g.value, rules)) {
      errors.push(`${g.typed}: "${g.value}" is not one of: ${shown(choices, rules)}`)
    }
  }
  for (const [flag, count] of counts) {
    if (count > 1 && !repeats(flag)) errors.push(`${canonicalName(flag)}: given more than once`)
  }
  return errors
}

/** Required flags (a default or an environment variable can stand in) and a required subcommand. */
export const checkRequired = (
  spec: Spec,
  command: Command,
  given: ReadonlyArray<Given>,
): ReadonlyArray<string> => {
  const errors: Array<string> = []
  for (const flag of commandFlags(command)) {
    const typable = flag.long.length + flag.short.length > 0
    if (flag.required !== true || !typable || flag.env !== undefined || flag.default !== undefined) continue
    if (!given.some((g) => g.flag === flag || canonicalName(g.flag) === canonicalName(flag)))
      errors.push(`missing required flag ${canonicalName(flag)}`)
  }
  if (command.subcommand_required === true && command.subcommands.length > 0) {
    const known = visibleSubcommands(command).map((s) => s.name)
    errors.push(
      `"${commandLine(spec, command)}" needs a subcommand${known.length > 0 ? ` (one of: ${known.join(", ")})` : ""}`,
    )
  }
  return errors
}

/** `conflicts` (either side may declare it) and `exclusive` (nothing else on the line). */
export const checkRelations = (given: ReadonlyArray<Given>, positionals: number): ReadonlyArray<string> => {
  const errors: Array<string> = []
  const flags = [...new Set(given.map((g) => g.flag))]
  const reported = new Set<string>()
  for (const a of flags) {
    for (const name of a.conflicts ?? []) {
      const b = flags.find((f) => f !== a && flagHasName(f, name))
      if (b === undefined) continue
      const pair = [canonicalName(a), canonicalName(b)].sort().join(" ")
      if (reported.has(pair)) continue
      reported.add(pair)
      errors.push(`${canonicalName(a)} cannot be used with ${canonicalName(b)}`)
    }
    if (a.exclusive === true && (flags.length > 1 || positionals > 0))
      errors.push(`${canonicalName(a)} must be given alone`)
  }
  return errors
}
