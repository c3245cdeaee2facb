import type { Command, Flag, Output, Spec } from "../model.js"
import { commandLine, findSubcommand } from "./commands.js"
import {
  canonicalName,
  commandFlags,
  consumesNextWord,
  dashed,
  findFlag,
  findNegated,
  flagHasName,
  isValueSelector,
  presentSelectorOutput,
} from "./flags.js"
import {
  argAt,
  checkFlagValues,
  checkPositionals,
  checkRelations,
  checkRequired,
  type Given,
  maxPositionals,
} from "./validateChecks.js"

/**
 * Checking a command line against the spec before running it (or for an agent before it
 * proposes one): the same rules the CLI's parser applies, with messages that name the allowed
 * values, so `--format yaml` fails with the output names rather than later with a parse error.
 */

/** The verdict on a command line. `command` is the canonical path (aliases resolved). */
export type ArgvResult =
  | {
      readonly ok: true
      readonly command: ReadonlyArray<string>
      /** The output the line selects: a selector flag's, else the default output. */
      readonly output?: string
    }
  | { readonly ok: false; readonly errors: ReadonlyArray<string> }

/**
 * Validates `argv` (the words after the program name) against `spec`.
 *
 * Rules where the spec format is silent: subcommands are recognised only before the first
 * positional; `--` ends flags; a non-repeatable flag may be given once; `-h`/`--help` (and, when
 * the spec has a version, `-V`/`--version` on the root) are accepted even when undeclared, as
 * every CLI framework adds them, and a help request skips the missing-argument, missing-flag
 * and missing-subcommand checks; a value selector and a boolean selector that pick different
 * outputs conflict. What the spec says is checked too: `required` flags, `conflicts`,
 * `exclusive`, `negate` names, `count`, `subcommand_required`, `double_dash` and
 * `var_min`/`var_max` of arguments, hidden and aliased choices and `ignore_case`.
 */
export const validateArgv = (spec: Spec, argv: ReadonlyArray<string>): ArgvResult => {
  const errors: Array<string> = []
  const given: Array<Given> = []
  const positionals: Array<string> = []
  let command: Command = spec.root
  let flagsEnded = false
  /** How many positionals came before `--` (all of them when there was none). */
  let dashDashAt: number | undefined
  let helpRequested = false
  /** The boolean flag typed just before the current word, to explain a stray value. */
  let previousBoolean: string | undefined

  const builtin = (name: string): boolean => {
    const isHelp = name === "--help" || name === "-h"
    const isVersion =
      command === spec.root && spec.version !== undefined && (name === "--version" || name === "-V")
    if (isHelp) helpRequested = true
    return isHelp || isVersion
  }

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    const afterBoolean = previousBoolean
    previousBoolean = undefined
    if (!flagsEnded && word === "--") {
      flagsEnded = true
      dashDashAt = positionals.length
      continue
    }
    if (!flagsEnded && word.startsWith("--")) {
      const eq = word.indexOf("=")
      const name = eq < 0 ? word : word.slice(0, eq)
      const inline = eq < 0 ? undefined : word.slice(eq + 1)
      const negated = findFlag(command, name) === undefined ? findNegated(command, name) : undefined
      const flag = findFlag(command, name) ?? negated
      if (flag === undefined) {
        if (inline === undefined && builtin(name)) continue
        errors.push(unknownFlag(spec, command, name))
        continue
      }
      if (flag.arg === undefined || negated !== undefined) {
        if (inline !== undefined) errors.push(takesNoValue(command, flag, name))
        else previousBoolean = name
        given.push({ flag, typed: name, value: undefined })
        continue
      }
      let value = inline
      if (value === undefined && consumesNextWord(flag)) {
        value = argv[i + 1]
        if (value === undefined) {
          errors.push(`${name}: a value is required`)
          continue
        }
        i++
      }
      given.push({ flag, typed: name, value })
      continue
    }
    if (!flagsEnded && word.startsWith("-") && word.length > 1) {
      // A cluster of short flags: `-vq`, `-fjson`, `-f json`, `-f=json`.
      for (let j = 1; j < word.length; j++) {
        const name = `-${word[j]!}`
        const flag = findFlag(command, name)
        if (flag === undefined) {
          if (!builtin(name)) errors.push(unknownFlag(spec, command, name))
          continue
        }
        if (flag.arg === undefined) {
          given.push({ flag, typed: name, value: undefined })
          if (word[j + 1] === "=") {
            errors.push(takesNoValue(command, flag, name))
            break
          }
          if (j === word.length - 1) previousBoolean = name
          continue
        }
        let value: string | undefined = word.slice(j + 1).replace(/^=/, "")
        if (value === "") {
          value = consumesNextWord(flag) ? argv[i + 1] : undefined
          if (value === undefined && consumesNextWord(flag)) {
            errors.push(`${name}: a value is required`)
            break
          }
          if (consumesNextWord(flag)) i++
        }
        given.push({ flag, typed: name, value })
        break
      }
      continue
    }
    if (!flagsEnded && positionals.length === 0) {
      const sub = findSubcommand(command, word)
      if (sub !== undefined) {
        command = sub
        continue
      }
    }
    if (afterBoolean !== undefined && positionals.length >= maxPositionals(command)) {
      // Reported here with the reason, and kept out of the positionals so it is not reported twice.
      errors.push(`unexpected argument "${word}" (${afterBoolean} takes no value)`)
      continue
    }
    positionals.push(word)
    // `double_dash="automatic"`: once this argument has a value, the rest are values too.
    if (argAt(command, positionals.length - 1)?.double_dash === "automatic") flagsEnded = true
  }

  const final = command
  // A global flag typed before the subcommand is checked against the final command's copy,
  // since each command has choices for its own effective outputs only.
  const effective = given.map((g) => ({ ...g, flag: g.flag.global ? rebind(final, g.flag) : g.flag }))
  errors.push(...checkPositionals(spec, final, positionals, dashDashAt ?? positionals.length, helpRequested))
  errors.push(...checkFlagValues(final, effective))
  if (!helpRequested) errors.push(...checkRequired(spec, final, effective))
  errors.push(...checkRelations(effective, positionals.length))
  const selected = selectOutput(final, effective)
  if (typeof selected === "string") errors.push(selected)
  if (errors.length > 0 || typeof selected === "string") return { ok: false, errors }
  return selected === undefined
    ? { ok: true, command: final.path }
    : { ok: true, command: final.path, output: selected.name }
}

const unknownFlag = (spec: Spec, command: Command, name: string): string =>
  `unknown flag ${name} for "${commandLine(spec, command)}"`

const takesNoValue = (command: Command, flag: Flag, typed: string): string => {
  const output = presentSelectorOutput(command, flag)
  return output === undefined
    ? `${typed}: takes no value`
    : `${typed}: takes no value (it selects the "${output.name}" output)`
}

/** The final command's own copy of a global flag (its choices are that command's outputs). */
const rebind = (command: Command, flag: Flag): Flag =>
  commandFlags(command).find((f) => canonicalName(f) === canonicalName(flag)) ?? flag

/**
 * The output a line selects: every selector flag given must agree on one output; without
 * one, the default output, else the value selector's own default value if it names an output.
 * Returns an error message when selections conflict.
 */
const selectOutput = (command: Command, given: ReadonlyArray<Given>): Output | string | undefined => {
  const picks: Array<{ readonly via: string; readonly output: Output }> = []
  for (const g of given) {
    const byPresence = presentSelectorOutput(command, g.flag)
    if (byPresence !== undefined) {
      picks.push({ via: g.typed, output: byPresence })
      continue
    }
    if (g.value === undefined || !isValueSelector(command, g.flag)) continue
    const byValue =
      command.outputs.find(
        (o) =>
          o.selector?.kind === "value" &&
          flagHasName(g.flag, dashed(o.selector.flag)) &&
          o.selector.value === g.value,
      ) ?? command.outputs.find((o) => o.name === g.value)
    if (byValue !== undefined) picks.push({ via: `${g.typed} ${g.value}`, output: byValue })
  }
  const distinct = [...new Set(picks.map((p) => p.output))]
  if (distinct.length > 1) return `conflicting output selections: ${picks.map((p) => p.via).join(", ")}`
  if (distinct[0] !== undefined) return distinct[0]
  const byDefault = command.outputs.find((o) => o.default)
  if (byDefault !== undefined) return byDefault
  const selectFlag = command.select === undefined ? undefined : findFlag(command, dashed(command.select))
  const fallback = selectFlag?.default
  return fallback === undefined ? undefined : command.outputs.find((o) => o.name === fallback)
}
