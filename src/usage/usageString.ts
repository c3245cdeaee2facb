import { Either } from "effect"
import type { DoubleDash } from "./model.js"

/**
 * The usage strings of flags and args, as usage reads them (lib/src/spec/{flag,arg}.rs,
 * docs/spec/reference/{flag,arg}.md):
 *
 * - an arg is `<name>` (required), `[name]` (optional) or a bare `name` (required), with `...`
 *   or `…` after it for several values, and `[-- name]` for one that comes after `--`;
 * - a flag is `-s`, `--long` (several of each), an optional `name:` in front, then at most one
 *   value `<VALUE>` or `[VALUE]`, and `...` after the names (repeatable) or after the value.
 *
 * Beyond usage, a flag's names may be separated by commas and its value written `--out=<PATH>`.
 */

export interface ValueUsage {
  readonly name: string
  readonly required: boolean
  readonly variadic: boolean
}

export interface ArgUsage extends ValueUsage {
  /** `required` for `[-- name]`; otherwise absent (usage's default, `optional`). */
  readonly double_dash?: DoubleDash | undefined
  /** `<start> <end>`: exactly this many values, named in order (the first names the argument). */
  readonly value_names?: ReadonlyArray<string> | undefined
}

/** `<a> <b>` or `[a] [b]`: several placeholders, each `<x>` or `[x]`; undefined otherwise. */
const fixedPlaceholders = (text: string): ReadonlyArray<string> | undefined => {
  const words = text.trim().split(/\s+/)
  return words.length > 1 && words.every((w) => /^(<[^<>]*>|\[[^[\]]*\])$/.test(w)) ? words : undefined
}

const MIXED = "fixed-arity placeholders must be either all required (<a> <b>) or all optional ([a] [b])"

export interface FlagUsage {
  /** The explicit `name:` when given. */
  readonly name?: string | undefined
  readonly long: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
  /** `--tag...`: the flag repeats. */
  readonly variadic: boolean
  readonly arg?: ValueUsage | undefined
}

/**
 * `<x>`, `[x]`, `x`, `<x>...`, `[x]…`, `[-- x]`, and a fixed number of values `<start> <end>`
 * (`-- <a> <b>` after `--`). Refused as in usage: an empty name, and placeholders that mix
 * required and optional.
 */
export const parseArgUsage = (text: string): Either.Either<ArgUsage, string> => {
  const afterDashes = text.trim().startsWith("-- ")
  const fixed = fixedPlaceholders(afterDashes ? text.trim().slice(3) : text)
  if (fixed !== undefined) {
    const required = fixed.map((w) => w.startsWith("<"))
    if (required.some((r) => r !== required[0])) return Either.left(`"${text}": ${MIXED}`)
    const value_names = fixed.map((w) => w.slice(1, -1).trim())
    if (value_names.some((n) => n === "")) return Either.left(`"${text}" has a placeholder with no name`)
    return Either.right({
      name: value_names[0]!,
      required: required[0]!,
      variadic: true,
      double_dash: afterDashes ? "required" : undefined,
      value_names,
    })
  }
  let name = text.trim()
  let variadic = false
  let required = true
  let double_dash: DoubleDash | undefined
  const ellipsis = /(\.\.\.|…)$/.exec(name)
  if (ellipsis !== null) {
    variadic = true
    name = name.slice(0, -ellipsis[0].length)
  }
  if (name.startsWith("[") && name.endsWith("]")) {
    required = false
    name = name.slice(1, -1)
  } else if (name.startsWith("<") && name.endsWith(">")) name = name.slice(1, -1)
  if (name.startsWith("-- ")) {
    double_dash = "required"
    name = name.slice(3)
  }
  name = name.trim()
  if (name === "") return Either.left(`"${text}" has no name (write <name>, [name] or name)`)
  return Either.right({ name, required, variadic, double_dash })
}

/** A flag value's placeholder: `<x>` or `[x]`, one word. */
const placeholder = (word: string): ValueUsage | undefined => {
  const m = /^(?:<([^<>]+)>|\[([^[\]]+)\])$/.exec(word)
  return m === null ? undefined : { name: (m[1] ?? m[2])!, required: m[1] !== undefined, variadic: false }
}

export const formatValueUsage = (v: ValueUsage): string =>
  `${v.required ? `<${v.name}>` : `[${v.name}]`}${v.variadic ? "..." : ""}`

export const parseFlagUsage = (usage: string): Either.Either<FlagUsage, string> => {
  const long: Array<string> = []
  const short: Array<string> = []
  let name: string | undefined
  let arg: ValueUsage | undefined
  let variadic = false
  const words = usage
    .replace(/\.\.\.|…/g, " … ")
    .split(/[\s,]+/)
    .flatMap((w) => (w.startsWith("--") && w.includes("=") ? w.split("=", 2) : [w]))
    .filter((w) => w !== "")
  for (const word of words) {
    if (word === "…") {
      if (arg !== undefined) arg = { ...arg, variadic: true }
      else variadic = true
    } else if (word.endsWith(":") && !word.startsWith("-") && long.length + short.length === 0) {
      name = word.slice(0, -1)
    } else if (/^--[^-\s]/.test(word)) long.push(word.slice(2))
    else if (word.startsWith("-") && !word.startsWith("--")) {
      if ([...word.slice(1)].length !== 1)
        return Either.left(`"${word}" in flag "${usage}" is not a short flag (one character after -)`)
      short.push(word.slice(1))
    } else {
      const value = placeholder(word)
      if (value !== undefined && arg !== undefined) {
        return Either.left(
          value.required !== arg.required
            ? `flag "${usage}": ${MIXED}`
            : `flag "${usage}" takes several values per use (${formatValueUsage(arg)} ${word}), which supervisor does not read; take one value and repeat the flag (var=#true), or use a positional argument "<a> <b>"`,
        )
      }
      if (value === undefined) {
        return Either.left(
          `unexpected "${word}" in flag "${usage}" (expected -x, --name, name: and one <VALUE> or [VALUE])`,
        )
      }
      arg = value
    }
  }
  if (long.length === 0 && short.length === 0 && name === undefined) {
    return Either.left(`flag "${usage}" has no name (expected -x, --name or name:)`)
  }
  return Either.right({ name, long, short, variadic, arg })
}

/**
 * How a flag is named in messages and selectors: `--format`, or `-f` when it has no long name,
 * or its bare `name:` when it has neither.
 */
export const canonicalFlagName = (flag: {
  readonly long: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
  readonly name?: string | undefined
}): string =>
  flag.long[0] !== undefined
    ? `--${flag.long[0]}`
    : flag.short[0] !== undefined
      ? `-${flag.short[0]}`
      : (flag.name ?? "")

/** Whether `name` (`--format` or `-f`) is one of the flag's names. */
export const flagHasName = (
  flag: { readonly long: ReadonlyArray<string>; readonly short: ReadonlyArray<string> },
  name: string,
): boolean =>
  name.startsWith("--")
    ? flag.long.includes(name.slice(2))
    : name.startsWith("-") && flag.short.includes(name.slice(1))
