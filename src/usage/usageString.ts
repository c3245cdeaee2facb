import { Either } from "effect"

/**
 * The usage strings of flags and args: `"-f --format <FMT>"`, `"<file>"`, `"[file]..."`.
 * A value in angle brackets is required, in square brackets optional; a trailing `...` repeats.
 */

export interface ValueUsage {
  readonly name: string
  readonly required: boolean
  readonly variadic: boolean
}

export interface FlagUsage {
  readonly long: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
  readonly arg?: ValueUsage | undefined
}

const VALUE = /^(?:<([^<>\s]+)>|\[([^[\]\s]+)\])(\.\.\.)?$/

/** `<x>`, `[x]`, `<x>...`; anything else is not a value placeholder. */
export const parseValueUsage = (text: string): Either.Either<ValueUsage, string> => {
  const m = VALUE.exec(text.trim())
  if (m === null) return Either.left(`"${text}" is not <name>, [name], <name>... or [name]...`)
  return Either.right({ name: (m[1] ?? m[2])!, required: m[1] !== undefined, variadic: m[3] !== undefined })
}

export const formatValueUsage = (v: ValueUsage): string =>
  `${v.required ? `<${v.name}>` : `[${v.name}]`}${v.variadic ? "..." : ""}`

/** Names separated by spaces or commas; `--name=<VALUE>` is accepted for the value too. */
export const parseFlagUsage = (usage: string): Either.Either<FlagUsage, string> => {
  const long: Array<string> = []
  const short: Array<string> = []
  let arg: ValueUsage | undefined
  const words = usage
    .split(/[\s,]+/)
    .flatMap((w) => (w.startsWith("--") && w.includes("=") ? w.split("=", 2) : [w]))
    .filter((w) => w !== "")
  for (const word of words) {
    if (/^--[^-\s]/.test(word)) long.push(word.slice(2))
    else if (/^-[^-\s]$/.test(word)) short.push(word.slice(1))
    else {
      const value = parseValueUsage(word)
      if (Either.isLeft(value) || arg !== undefined) {
        return Either.left(`unexpected "${word}" in flag "${usage}" (expected -x, --name and one <VALUE>)`)
      }
      arg = value.right
    }
  }
  if (long.length === 0 && short.length === 0) {
    return Either.left(`flag "${usage}" has no name (expected -x or --name)`)
  }
  return Either.right({ long, short, arg })
}

/** How a flag is named in messages and selectors: `--format`, or `-f` when it has no long name. */
export const canonicalFlagName = (flag: {
  readonly long: ReadonlyArray<string>
  readonly short: ReadonlyArray<string>
}): string => (flag.long[0] !== undefined ? `--${flag.long[0]}` : `-${flag.short[0] ?? ""}`)

/** Whether `name` (`--format` or `-f`) is one of the flag's names. */
export const flagHasName = (
  flag: { readonly long: ReadonlyArray<string>; readonly short: ReadonlyArray<string> },
  name: string,
): boolean =>
  name.startsWith("--")
    ? flag.long.includes(name.slice(2))
    : name.startsWith("-") && flag.short.includes(name.slice(1))
