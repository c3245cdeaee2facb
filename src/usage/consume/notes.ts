import type { Arg, Choice, Effect, Flag } from "../model.js"

/**
 * What the docs say about a flag or an argument beyond its help, as short sentences shared by
 * the Markdown reference and the man page (each renders the literal parts its own way).
 */

/** A sentence: text, and literal parts (names, values) each renderer marks up. */
export type Note = ReadonlyArray<string | { readonly code: string }>

const lit = (code: string) => ({ code })

const list = (values: ReadonlyArray<string>): Array<string | { readonly code: string }> =>
  values.flatMap((v, i) => (i === 0 ? [lit(v)] : [", ", lit(v)]))

/** usage's labels for `effect` (lib/src/spec/effect.rs). */
export const EFFECT_LABEL: Readonly<Record<Effect, string>> = {
  read: "read-only",
  write: "modifies state",
  destructive: "destructive",
}

export const flagNotes = (flag: Flag, choices: ReadonlyArray<Choice> | undefined): Array<Note> => {
  const notes: Array<Note> = []
  if (flag.help !== undefined) notes.push([flag.long_help ?? flag.help])
  else if (flag.long_help !== undefined) notes.push([flag.long_help])
  if (flag.required === true) notes.push(["Required."])
  if (choices !== undefined) notes.push(["Choices: ", ...list(choices.map((c) => c.value)), "."])
  if (flag.default_list !== undefined) notes.push(["Default: ", ...list(flag.default_list), "."])
  else if (flag.default !== undefined) notes.push(["Default: ", lit(flag.default), "."])
  if (flag.env !== undefined) notes.push(["Environment: ", lit(flag.env), "."])
  if (flag.negate !== undefined) notes.push(["Turned off by ", lit(flag.negate), "."])
  if (flag.count === true) notes.push(["Counts: each use adds one."])
  else if (flag.variadic) notes.push(["Repeatable."])
  if (flag.conflicts !== undefined) notes.push(["Cannot be used with ", ...list(flag.conflicts), "."])
  if (flag.exclusive === true) notes.push(["Must be given alone."])
  if (flag.deprecated !== undefined) notes.push([`Deprecated: ${flag.deprecated}.`])
  if (flag.effect !== undefined) notes.push([`Effect: ${EFFECT_LABEL[flag.effect]}.`])
  if (flag.global) notes.push(["Global."])
  return notes
}

export const argNotes = (arg: Arg): Array<Note> => {
  const notes: Array<Note> = []
  const help = arg.long_help ?? arg.help
  if (help !== undefined) notes.push([help])
  notes.push([arg.required ? "Required." : "Optional."])
  if (arg.variadic) {
    const bounds = [
      arg.var_min === undefined ? undefined : `at least ${arg.var_min}`,
      arg.var_max === undefined ? undefined : `at most ${arg.var_max}`,
    ].filter((b) => b !== undefined)
    notes.push([bounds.length === 0 ? "Repeatable." : `Repeatable (${bounds.join(", ")}).`])
  }
  const choices = arg.choices?.filter((c) => c.hide !== true)
  if (choices !== undefined) notes.push(["Choices: ", ...list(choices.map((c) => c.value)), "."])
  if (arg.default_list !== undefined) notes.push(["Default: ", ...list(arg.default_list), "."])
  else if (arg.default !== undefined) notes.push(["Default: ", lit(arg.default), "."])
  if (arg.env !== undefined) notes.push(["Environment: ", lit(arg.env), "."])
  if (arg.double_dash === "required") notes.push(["After ", lit("--"), "."])
  if (arg.effect !== undefined) notes.push([`Effect: ${EFFECT_LABEL[arg.effect]}.`])
  return notes
}
