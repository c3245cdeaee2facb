import { Effect, Either, Stream } from "effect"
import { parseHumanDuration } from "../domain/HumanDuration.js"
import { isLogClear, type LogClear, type LogEntry } from "../domain/LogEntry.js"
import type { LogStoreError, LogStoreShape } from "../logs/LogStore.js"
import { makeMatcher } from "../logs/reader.js"

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

/** The timestamp of an entry (`YYYY-MM-DD HH:MM:SS`, local time) as epoch ms. */
const entryTime = (e: LogEntry) => new Date(e.timestamp.replace(" ", "T")).getTime()

/**
 * The log tail with filters: the last `lines` stored entries that match, then the new ones that
 * match. The new ones are those after the last entry stored when the request came (so none is
 * lost between the two parts). Clear notices (`{ _clear, _gen }`) pass every filter, as in the
 * plain tail: a consumer must drop what it shows when the log is cleared.
 */
export const filteredTail = (
  logs: LogStoreShape,
  id: string,
  o: { readonly lines: number; readonly since?: number | undefined; readonly grep?: string | undefined },
): Stream.Stream<LogEntry | LogClear, LogStoreError> => {
  if (o.since === undefined && o.grep === undefined) return logs.tail(id, { lines: o.lines })
  // the stored part is filtered by the store's matcher: the new lines go through the same one
  const matches = makeMatcher({ ...(o.grep !== undefined ? { grep: o.grep } : {}) })
  const keep = (e: LogEntry) =>
    matches(e.message) !== undefined && (o.since === undefined || entryTime(e) >= o.since)
  return Stream.unwrap(
    Effect.gen(function* () {
      const { lastId } = yield* logs.stats(id)
      const history = yield* logs.query(id, {
        lines: o.lines,
        ...(o.since !== undefined ? { since: o.since } : {}),
        ...(o.grep !== undefined ? { grep: o.grep } : {}),
      })
      return Stream.concat(
        Stream.fromIterable(history.filter((e) => e.id <= lastId)),
        logs.after(id, { afterId: lastId }).pipe(Stream.filter((item) => isLogClear(item) || keep(item))),
      )
    }),
  )
}
