import { Either } from "effect"
import { parseHumanDuration } from "./HumanDuration.js"

/** `--since`/`--until`: an absolute time (`2026-01-31 12:00:00`, ISO) or a relative one (`5min`, `1h`). */
export const parseTimeArg = (value: string, now = Date.now()): Either.Either<number, string> => {
  // a bare number is no time: Date.parse would read "5" as the year 2001 or 2005
  if (/^\s*\d+(\.\d+)?\s*$/.test(value))
    return Either.left(
      `invalid time ${JSON.stringify(value)}: a number needs a unit, e.g. "${value.trim()}min" or "${value.trim()}s"`,
    )
  const relative = parseHumanDuration(value.replace(/\s+ago$/, ""))
  if (Either.isRight(relative)) return Either.right(now - relative.right)
  if (relative.left.includes("too large"))
    return Either.left(`invalid time ${JSON.stringify(value)}: ${relative.left}`)
  const absolute = Date.parse(value.includes("T") || !value.includes(" ") ? value : value.replace(" ", "T"))
  if (!Number.isNaN(absolute)) return Either.right(absolute)
  return Either.left(
    `invalid time ${JSON.stringify(value)}; write e.g. "5min", "2h" or "2026-01-31 12:00:00"`,
  )
}
