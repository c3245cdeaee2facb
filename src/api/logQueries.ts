// The CLI's log requests over several daemons: the stored selection (`logs`), and the same
// followed by every new entry (`logs --tail`), both interleaved across the daemons by time.
import { Effect, Option, Stream } from "effect"
import { isLogClear, type LogClear, type LogEntry } from "../domain/LogEntry.js"
import { compileJqFilter } from "../logs/jq/eval.js"
import type { LogStoreError, LogStoreShape } from "../logs/LogStore.js"
import { type LogQuery, makeMatcher } from "../logs/reader.js"
import { entryTest, parseFieldFilter } from "../logs/structured/filter.js"
import type { LogsQuery } from "./Api.js"

export type LogsPayload = typeof LogsQuery.Type

/**
 * Why a request's filters cannot be used (a bad regex, `--field` or `--jq`), or undefined: the
 * raw handlers answer 400 with it before anything is read.
 */
export const queryProblem = (q: LogsPayload): string | undefined => {
  try {
    logQueryOf(q)
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/** The store's query of a request (its regex case-insensitive unless `case_sensitive`). Throws on a bad filter. */
const logQueryOf = (q: LogsPayload): LogQuery => {
  const regex = q.regex === undefined ? undefined : new RegExp(q.regex, q.case_sensitive ? "" : "i")
  const fields = (q.fields ?? []).map((f) => {
    const parsed = parseFieldFilter(f)
    if (typeof parsed === "string") throw new Error(parsed)
    return parsed
  })
  return {
    ...(q.level !== undefined && { level: q.level }),
    ...(fields.length > 0 && { fields }),
    ...(q.jq !== undefined && { jq: compileJqFilter(q.jq) }),
    ...(q.lines !== undefined && { lines: q.lines }),
    ...(q.since !== undefined && { since: q.since }),
    ...(q.until !== undefined && { until: q.until }),
    ...(q.grep !== undefined && { grep: q.grep }),
    ...(regex !== undefined && { regex }),
    ...(q.case_sensitive !== undefined && { caseSensitive: q.case_sensitive }),
    ...(q.raw !== undefined && { raw: q.raw }),
  }
}

/** The stored entries a `logs` request selects; several daemons are interleaved by time. */
export const queryLogs = (logs: LogStoreShape, payload: LogsPayload) =>
  Effect.gen(function* () {
    const query = logQueryOf(payload)
    const all = yield* Effect.forEach(payload.ids, (id) =>
      logs.query(id, query).pipe(Effect.orElseSucceed(() => [])),
    )
    if (all.length === 1) return all[0] ?? []
    // Several daemons: interleave by time; the last N apply to the merged view.
    const merged = all
      .flat()
      .sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0))
    return payload.lines !== undefined ? merged.slice(-payload.lines) : merged
  })

/**
 * `logs --tail`: the last `lines` (default 10) stored entries the query selects across all its
 * daemons, interleaved by time as `queryLogs` gives them, then every new entry of any of them as
 * it is indexed, forever. The new ones are those after each daemon's last entry when the request
 * came, so none is lost or repeated between the two parts. The filters (`grep`, `regex`,
 * `case_sensitive`, `raw`, `since`) apply to both parts; `{ _clear, _gen }` notices pass them all.
 * `until` has no meaning for new lines: the caller refuses it.
 */
export const followLogs = (
  logs: LogStoreShape,
  q: LogsPayload,
): Stream.Stream<LogEntry | LogClear, LogStoreError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const lastIds = new Map(
        yield* Effect.forEach(q.ids, (id) =>
          logs.stats(id).pipe(
            Effect.map((s) => [id, s.lastId] as const),
            Effect.orElseSucceed(() => [id, 0] as const),
          ),
        ),
      )
      const stored = yield* queryLogs(logs, { ...q, lines: q.lines ?? 10 })
      // the new lines go through the store's own matcher (lines, since and until play no part in it)
      const query = logQueryOf(q)
      const keep = makeMatcher(query)
      const test = entryTest(query)
      const fresh = Stream.mergeAll(
        q.ids.map((id) =>
          logs.after(id, { afterId: lastIds.get(id) ?? 0 }).pipe(Stream.catchAll(() => Stream.empty)),
        ),
        { concurrency: "unbounded" },
      ).pipe(
        Stream.filterMap((item): Option.Option<LogEntry | LogClear> => {
          if (isLogClear(item)) return Option.some(item)
          const message = keep(item.message)
          if (message === undefined || (test !== undefined && !test(item))) return Option.none()
          return Option.some({ ...item, message })
        }),
      )
      return Stream.concat(
        Stream.fromIterable<LogEntry | LogClear>(
          stored.filter((e) => e.id <= (lastIds.get(e.daemon_id) ?? Number.POSITIVE_INFINITY)),
        ),
        fresh,
      )
    }),
  )
