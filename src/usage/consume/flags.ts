import type { Choice, Command, Flag, Output, Selector } from "../model.js"
import { canonicalFlagName, flagHasName as hasName } from "../usageString.js"

/**
 * Flags as the consumers see them. The resolver already fills a value selector's choices and
 * folds inherited globals in; these helpers only add what every consumer would otherwise
 * re-derive (names with dashes, labels, the help of a choice that names an output) and make
 * a selector that points at an undeclared flag still usable rather than silently unknown.
 */

/** `--format` from `format`, `--format` or `-f` (selectors and `select` may carry either form). */
export const dashed = (flag: string): string => (flag.startsWith("-") ? flag : `--${flag}`)

/** Whether a flag answers to a name (`--format`, `-f`, or a bare long name `format`). */
export const flagHasName = (flag: Flag, name: string): boolean => hasName(flag, dashed(name))

/** Every name a flag answers to with dashes, short ones first (`alias ... hide=#true` ones too). */
export const allFlagNames = (flag: Flag): ReadonlyArray<string> => [
  ...flag.short.map((s) => `-${s}`),
  ...flag.long.map((l) => `--${l}`),
]

/** The names a flag is shown and offered by: all but hidden aliases: `["-f", "--format"]`. */
export const flagNames = (flag: Flag): ReadonlyArray<string> =>
  flag.hidden_names === undefined
    ? allFlagNames(flag)
    : allFlagNames(flag).filter((n) => !flag.hidden_names!.includes(n))

/** The flag whose `negate` is `name` (`--no-color` turns `--color` off). */
export const findNegated = (command: Command, name: string): Flag | undefined =>
  command.flags.find((f) => f.negate === name)

/** The canonical name: the first long name, else the first short one (else `name:`, else the spec string). */
export const canonicalName = (flag: Flag): string =>
  flag.long.length + flag.short.length > 0 || flag.name !== undefined ? canonicalFlagName(flag) : flag.usage

/** Whether the next word is the value (`--format json`); an optional value only comes as `--x=v`. */
export const consumesNextWord = (flag: Flag): boolean => flag.arg?.required === true

/** The value placeholder without brackets: `FMT` for `<FMT>`. */
export const valueName = (flag: Flag): string | undefined =>
  flag.arg === undefined ? undefined : flag.arg.name.replace(/^[<[]/, "").replace(/[>\]]$/, "")

/** `-f, --format <FMT>`: how help and documentation show a flag (a nameless one by its `name:`). */
export const flagLabel = (flag: Flag): string => {
  const names = flagNames(flag).join(", ") || `${flag.name ?? flag.usage}:`
  const value = valueName(flag)
  if (value === undefined || flag.arg === undefined) return names
  return flag.arg.required ? `${names} <${value}>` : `${names} [${value}]`
}

/** The argv that asks for an output: `--format json` or `--json`. */
export const selectorArgv = (selector: Selector): string =>
  selector.kind === "value" ? `${dashed(selector.flag)} ${selector.value}` : dashed(selector.flag)

/** Whether the flag is the command's value selector (`select "--format"`). */
export const isValueSelector = (command: Command, flag: Flag): boolean =>
  (command.select !== undefined && flagHasName(flag, dashed(command.select))) ||
  command.outputs.some((o) => o.selector?.kind === "value" && flagHasName(flag, dashed(o.selector.flag)))

/** The output a boolean flag selects (`select="--json"`), if any. */
export const presentSelectorOutput = (command: Command, flag: Flag): Output | undefined =>
  command.outputs.find((o) => o.selector?.kind === "present" && flagHasName(flag, dashed(o.selector.flag)))

/**
 * The choices of a flag, each with help: a choice without its own help borrows the help of
 * the output it names when the flag is the value selector, so completions can describe
 * `json` as "One JSON document" even if the resolver only copied the names.
 */
export const flagChoices = (command: Command, flag: Flag): ReadonlyArray<Choice> | undefined => {
  const declared = flag.arg?.choices
  const selector = isValueSelector(command, flag)
  if (declared === undefined) {
    if (!selector || flag.arg === undefined) return undefined
    // A selector whose choices were not filled: offer the effective output names.
    return command.outputs.map((o) => withHelp(o.name, o.help))
  }
  if (!selector) return declared.filter((c) => c.hide !== true)
  return declared
    .filter((c) => c.hide !== true)
    .map((c) => withHelp(c.value, c.help ?? command.outputs.find((o) => o.name === c.value)?.help))
}

const withHelp = (value: string, help: string | undefined): Choice =>
  help === undefined ? { value } : { value, help }

/**
 * The flags of a command as consumers use them: its declared flags (inherited globals
 * included), plus a synthesized flag for any selector whose flag the spec did not declare, so
 * `--json` is never reported unknown by validation while documentation advertises it.
 */
export const commandFlags = (command: Command): ReadonlyArray<Flag> => {
  const flags: Array<Flag> = [...command.flags]
  const known = (name: string): boolean => flags.some((f) => flagHasName(f, name))
  const valueFlags = new Set<string>()
  if (command.select !== undefined) valueFlags.add(dashed(command.select))
  for (const output of command.outputs) {
    const selector = output.selector
    if (selector === null) continue
    const name = dashed(selector.flag)
    if (selector.kind === "value") {
      valueFlags.add(name)
    } else if (!known(name)) {
      flags.push(synthesized(name, output.help ?? `Select the ${output.name} output`, undefined))
    }
  }
  for (const name of valueFlags) {
    if (known(name)) continue
    flags.push(
      synthesized(name, "Select the output format", {
        name: "FORMAT",
        required: true,
        choices: command.outputs.map((o) => withHelp(o.name, o.help)),
      }),
    )
  }
  return flags
}

const synthesized = (name: string, help: string, arg: Flag["arg"]): Flag => {
  const isLong = name.startsWith("--")
  const bare = name.replace(/^-+/, "")
  const base = {
    usage: arg === undefined ? name : `${name} <${arg.name}>`,
    long: isLong ? [bare] : [],
    short: isLong ? [] : [bare],
    help,
    global: false,
    hide: false,
    variadic: false,
  }
  return arg === undefined ? base : { ...base, arg }
}

/** The visible flags, in order. */
export const visibleFlags = (command: Command): ReadonlyArray<Flag> =>
  commandFlags(command).filter((f) => !f.hide)

/** Finds a flag of the command by a name with dashes. */
export const findFlag = (command: Command, name: string): Flag | undefined =>
  commandFlags(command).find((f) => flagHasName(f, name))
