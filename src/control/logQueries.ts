// The log queries of the `Logs` and `Tail` commands over several daemons: the stored selection
// (`logs`), and the same followed by every new entry (`logs --tail`), both interleaved by time.
import { Effect, Option, Stream } from "effect"
import { isLogClear, type LogClear, type LogEntry } from "../domain/LogEntry.js"
import type { LogFilters } from "../domain/LogFilters.js"
import { stripAnsi } from "../logs/ansi.js"
import { compileJqFilter } from "../logs/jq/eval.js"
import type { LogStoreError, LogStoreShape } from "../logs/LogStore.js"
import { type LogQuery, makeMatcher } from "../logs/reader.js"
import { entryTest, parseFieldFilter } from "../logs/structured/filter.js"

/** A logs query: the daemons (qualified IDs) and the filters. */
export type LogsPayload = { readonly ids: ReadonlyArray<string> } & LogFilters

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

/**
 * The stored entries a `Logs` command selects, a chunk at a time, for a streamed answer. One
 * daemon without a filter (`logs ID -n N`) is read page by page, never all N at once (an unknown
 * daemon gives no lines); otherwise the selection is made first (a read problem is not a cut-off
 * stream), then handed out 2000 entries at a time.
 */
export const storedChunks = (logs: LogStoreShape, q: LogsPayload) =>
  Effect.gen(function* () {
    const [only] = q.ids
    const paged =
      q.ids.length === 1 &&
      only !== undefined &&
      q.since === undefined &&
      q.until === undefined &&
      q.grep === undefined &&
      q.regex === undefined &&
      q.level === undefined &&
      q.fields === undefined &&
      q.jq === undefined
    if (paged)
      return logs.pages(only, q.lines === undefined ? {} : { lines: q.lines }).pipe(
        Stream.map((page) => (q.raw ? page.map((e) => ({ ...e, message: stripAnsi(e.message) })) : page)),
        Stream.catchAll(() => Stream.empty),
      )
    const entries = yield* queryLogs(logs, q)
    return entries.length === 0
      ? Stream.empty
      : Stream.range(0, Math.ceil(entries.length / 2000) - 1).pipe(
          Stream.map((i) => entries.slice(i * 2000, (i + 1) * 2000)),
        )
  })

/**
 * A `Tail`: one daemon with at most `lines`, `since` and `grep` follows it as the log tail route
 * always did (filteredTail); anything else as `logs --tail` (followLogs).
 */
export const tailLogs = (logs: LogStoreShape, q: LogsPayload) => {
  const [only] = q.ids
  const plain =
    q.ids.length === 1 &&
    only !== undefined &&
    q.regex === undefined &&
    q.level === undefined &&
    q.fields === undefined &&
    q.jq === undefined &&
    q.case_sensitive !== true &&
    q.raw !== true &&
    (q.grep === undefined || typeof q.grep === "string")
  return plain
    ? filteredTail(logs, only, {
        lines: q.lines ?? 10,
        since: q.since,
        grep: typeof q.grep === "string" ? q.grep : undefined,
      })
    : followLogs(logs, q)
}
