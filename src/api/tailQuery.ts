import { Either } from "effect"
import { parseHumanDuration } from "../domain/HumanDuration.js"

/**
 * `since` of the log tail: epoch milliseconds (digits; 10 digits or fewer are seconds), or a
 * duration ago (`5min`, `1h 30m`). Left: why it is not one.
 */
export const parseSince = (text: string, now: number = Date.now()): Either.Either<number, string> => {
  const t = text.trim()
  if (/^\d+$/.test(t)) {
    const ms = t.length <= 10 ? Number(t) * 1000 : Number(t)
    // beyond 2^53 the digits are not kept (and 400 of them are Infinity)
    return Number.isSafeInteger(ms)
      ? Either.right(ms)
      : Either.left(
          `since ${JSON.stringify(text)}: epoch milliseconds too large (at most ${Number.MAX_SAFE_INTEGER})`,
        )
  }
  return Either.mapLeft(
    Either.map(parseHumanDuration(t), (ms) => now - ms),
    (why) => `since ${JSON.stringify(text)}: expected epoch milliseconds or a duration such as 5min (${why})`,
  )
}
