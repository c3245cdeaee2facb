import { Duration, Either, ParseResult, Schema } from "effect"
import { decodeWith } from "./parse.js"

// Units of the humantime format, in milliseconds.
const UNITS: ReadonlyArray<readonly [ReadonlyArray<string>, number]> = [
  [["nsec", "ns"], 1e-6],
  [["usec", "us", "µs"], 1e-3],
  [["msec", "ms", "millis", "millisecond", "milliseconds"], 1],
  [["seconds", "second", "secs", "sec", "s"], 1000],
  [["minutes", "minute", "mins", "min", "m"], 60_000],
  [["hours", "hour", "hrs", "hr", "h"], 3_600_000],
  [["days", "day", "d"], 86_400_000],
  [["weeks", "week", "w"], 604_800_000],
  [["months", "month", "M"], 2_630_016_000], // 30.44 days, as humantime
  [["years", "year", "y"], 31_557_600_000], // 365.25 days, as humantime
]
const unitMillis = new Map(UNITS.flatMap(([names, ms]) => names.map((n) => [n, ms] as const)))

/**
 * Parses a humantime duration such as `500ms`, `5s`, `1m 30s` or `2h30m` into
 * milliseconds. A bare number is not accepted: the unit says what is meant.
 */
export const parseHumanDuration = (input: string): Either.Either<number, string> => {
  const text = input.trim()
  if (text === "") return Either.left("empty duration; write a number and a unit, e.g. 5s or 500ms")
  const re = /\s*(\d+(?:\.\d+)?)\s*([A-Za-z\u00b5]+)/y
  let total = 0
  let at = 0
  while (at < text.length) {
    re.lastIndex = at
    const m = re.exec(text)
    if (!m) {
      return Either.left(
        /^\d+(\.\d+)?$/.test(text)
          ? `duration ${JSON.stringify(input)} has no unit; write e.g. ${text}s or ${text}ms`
          : `invalid duration ${JSON.stringify(input)}; write a number and a unit, e.g. 5s, 500ms, 1m 30s`,
      )
    }
    const ms = unitMillis.get(m[2]!) ?? unitMillis.get(m[2]!.toLowerCase())
    if (ms === undefined) {
      return Either.left(
        `unknown unit ${JSON.stringify(m[2])} in duration ${JSON.stringify(input)}; use ns, us, ms, s, m, h, d or w (or a long form: sec, minutes, hours, ...)`,
      )
    }
    total += Number(m[1]) * ms
    at = re.lastIndex
    while (text[at] === " ") at++
  }
  // 400 nines of years is Infinity: no time can be computed from it (and JSON has no Infinity)
  if (!Number.isFinite(total))
    return Either.left(`duration ${JSON.stringify(input)} is too large; write at most a few thousand years`)
  return Either.right(total)
}

/** Formats milliseconds back into the shortest exact humantime string. */
export const formatHumanDuration = (millis: number): string => {
  if (millis === 0) return "0s"
  const parts: Array<string> = []
  let rest = millis
  for (const [unit, ms] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (rest >= ms) {
      const n = Math.floor(rest / ms)
      parts.push(`${n}${unit}`)
      rest -= n * ms
    }
  }
  if (rest > 0) parts.push(`${Number(rest.toFixed(3))}ms`)
  return parts.join(" ")
}

/** A humantime string in config files, a `Duration` in the model. */
export const HumanDuration = Schema.transformOrFail(
  Schema.String.annotations({
    identifier: "HumanDuration",
    message: () => 'expected a duration string such as "5s", "500ms" or "1m 30s"',
    description: "A duration in humantime format: a number and a unit, e.g. 500ms, 5s, 1m 30s, 2h",
    jsonSchema: {
      type: "string",
      pattern: "^\\s*(\\d+(\\.\\d+)?\\s*[A-Za-zµ]+\\s*)+$",
      examples: ["500ms", "5s", "1m 30s"],
    },
  }),
  Schema.DurationFromSelf,
  {
    strict: true,
    decode: decodeWith((s) => Either.map(parseHumanDuration(s), Duration.millis)),
    encode: (d) => ParseResult.succeed(formatHumanDuration(Duration.toMillis(d))),
  },
)
