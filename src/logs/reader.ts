import { Effect } from "effect"
import { formatLogTimestamp, type LogEntry } from "../domain/LogEntry.js"
import { stripAnsi } from "./ansi.js"
import type { FollowerState, ReadContext } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import {
  closeView,
  endOf,
  type IndexRecord,
  type IndexView,
  type Located,
  lastId,
  lastRecord,
  lowerBound,
  openView,
  readBackward,
  readForward,
  scopedView,
  withView,
} from "./indexFile.js"
import { splitPieces } from "./split.js"
import { type EntryFields, type FieldsSource, fieldsLines, fieldsSource } from "./structured/fieldsFile.js"
import { entryTest, levelTest, makeEntry, type StructuredQuery } from "./structured/filter.js"

/** What `LogStore.query` selects. Filters apply first; `lines` then keeps the last N matches. */
export interface LogQuery extends StructuredQuery {
  /** Only the last N matching entries. */
  readonly lines?: number
  /** Entries read at or after this time (epoch ms). */
  readonly since?: number
  /** Entries read at or before this time (epoch ms). */
  readonly until?: number
  /** Substrings, any of which the message must contain; case-insensitive unless `caseSensitive`. */
  readonly grep?: string | ReadonlyArray<string>
  /** Regular expression the message must match (its own flags apply). */
  readonly regex?: RegExp
  /** Makes `grep` case-sensitive. */
  readonly caseSensitive?: boolean
  /** Strip ANSI escape sequences from the returned messages. */
  readonly raw?: boolean
}

export type { ReadContext } from "./daemonLog.js"

/** Entries of one snapshot of the index, with the snapshot's generation and last id. */
export interface Batch {
  readonly gen: number
  readonly entries: ReadonlyArray<LogEntry>
  /** The last id indexed when the snapshot was taken (the generation's first id - 1 when empty). */
  readonly lastId: number
}

/** Returns the message to show, or undefined when the entry is filtered out. */
export const makeMatcher = (q: LogQuery): ((message: string) => string | undefined) => {
  const greps = (typeof q.grep === "string" ? [q.grep] : (q.grep ?? [])).filter((g) => g !== "")
  // A line passes when any --grep or the --regex matches (or-ed, as pitchfork does).
  // Case-insensitive: an escaped literal with the `i` flag, cheaper than lower-casing every line.
  const tests: Array<RegExp> = greps.map(
    (g) => new RegExp(g.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), q.caseSensitive ? "" : "i"),
  )
  if (q.regex !== undefined) tests.push(q.regex)
  if (tests.length === 0) return q.raw ? stripAnsi : (m) => m
  return (message) => {
    // match what the user sees: colour codes would break a substring search
    const plain = stripAnsi(message)
    const hit = tests.some((re) => {
      re.lastIndex = 0 // a /g or /y regex keeps state between tests
      return re.test(plain)
    })
    return hit ? (q.raw ? plain : message) : undefined
  }
}

/** Raw bytes read per group of contiguous records: large forwards, small backwards (`lines`). */
export const FORWARD_GROUP_BYTES = 1024 * 1024
const BACKWARD_GROUP_BYTES = 64 * 1024

/** Largest j < i such that records[j..i) are contiguous in the raw file and span at most `max` bytes. */
const groupStartBackward = (records: ReadonlyArray<Located>, i: number, max: number): number => {
  let j = i - 1
  const end = records[i - 1]!.rec.end
  while (j > 0) {
    const prev = records[j - 1]!.rec
    if (prev.end !== records[j]!.rec.off || end - prev.off > max) break
    j--
  }
  return j
}

/** Smallest j > i such that records[i..j) are contiguous and span at most `max` bytes. */
export const groupEndForward = (records: ReadonlyArray<IndexRecord>, i: number, max: number): number => {
  let j = i + 1
  const off = records[i]!.off
  while (j < records.length) {
    const next = records[j]!
    if (next.off !== records[j - 1]!.end || next.end - off > max) break
    j++
  }
  return j
}

/**
 * Called per entry with its id, formatted timestamp, message and parsed part (a structured
 * daemon's entries only); false stops the walk.
 */
type Visit = (id: number, timestamp: string, message: string, parsed: EntryFields | undefined) => boolean

/**
 * Reads contiguous records with one positional read and calls `visit` for each entry,
 * in id order or (`reverse`) from the last; only visited entries become strings.
 * Synchronous, like the index lookups: a group is at most about 1 MiB of page cache.
 */
const visitEntries = (
  ctx: ReadContext,
  rawFd: number,
  records: ReadonlyArray<IndexRecord>,
  reverse: boolean,
  visit: Visit,
  fields: FieldsSource,
): boolean => {
  const first = records[0]
  const last = records[records.length - 1]
  if (first === undefined || last === undefined) return true
  const base = first.off
  const buf = fsio.readRangeSync(rawFd, base, last.end - base, ctx.rawPath)
  const bounds: Array<number> = []
  for (let r = 0; r < records.length; r++) {
    const rec = records[reverse ? records.length - 1 - r : r]!
    if (rec.end - base > buf.length) continue // truncated under us: the caller's epoch check retries
    bounds.length = 0
    splitPieces(buf, rec.off - base, rec.end - base, ctx.maxLine, true, (s, e) => {
      if (bounds.length < 2 * rec.n) bounds.push(s, e)
    })
    const count = bounds.length / 2
    const timestamp = formatLogTimestamp(rec.ts)
    // a text daemon's records have no fields lines: nothing more is read for them
    const fbuf = rec.fo === undefined || rec.fe === undefined ? undefined : fields.read(rec.fo, rec.fe)
    const parsed = fbuf === undefined ? undefined : fieldsLines(fbuf, count)
    for (let k = 0; k < count; k++) {
      const i = reverse ? count - 1 - k : k
      const s = bounds[2 * i]!
      let e = bounds[2 * i + 1]!
      if (e > s && buf[e - 1] === 13) e-- // CRLF output: drop the CR
      if (!visit(rec.first + i, timestamp, buf.toString("utf8", s, e), parsed?.[i])) return false
    }
  }
  return true
}

/** Visits the entries of records in id order, contiguous ones grouped into large reads. */
const visitForward = (
  ctx: ReadContext,
  rawFd: number,
  records: ReadonlyArray<IndexRecord>,
  visit: Visit,
  fields: FieldsSource,
): boolean => {
  for (let i = 0; i < records.length; ) {
    const j = groupEndForward(records, i, FORWARD_GROUP_BYTES)
    if (!visitEntries(ctx, rawFd, records.slice(i, j), false, visit, fields)) return false
    i = j
  }
  return true
}

/** The index view and the raw fd of a daemon, both closed when the scope closes. */
const openBoth = (ctx: ReadContext) =>
  Effect.gen(function* () {
    const view = yield* scopedView(ctx.indexPath)
    const rawFd = yield* fsio.scopedOpenIfExists(ctx.rawPath)
    const fields = yield* Effect.acquireRelease(
      Effect.sync(() => fieldsSource(ctx.fieldsPath)),
      (f) => Effect.sync(() => f.close()),
    )
    const last = yield* fsio.attempt(() => lastRecord(view))
    return { view, rawFd, fields, last, lastId: endOf(view, last).nextId - 1 }
  })

/**
 * The selected entries, in id order. Works through the index one block (about 64 KiB of
 * index, or up to 1 MiB of raw bytes) at a time and yields to other fibers in between, so
 * a query over a large log never blocks the event loop for long.
 */
export const runQuery = (ctx: ReadContext, q: LogQuery): Effect.Effect<Batch, LogStoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { view, rawFd, fields, lastId: snapshotLast } = yield* openBoth(ctx)
      const batch = (entries: ReadonlyArray<LogEntry>): Batch => ({
        gen: view.header.gen,
        entries,
        lastId: snapshotLast,
      })
      const want = q.lines === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(q.lines))
      if (rawFd === undefined || view.fd === undefined || want === 0) return batch([])
      const since = q.since
      const until = q.until
      const from =
        since !== undefined
          ? yield* fsio.attempt(() => lowerBound(view, (r) => r.ts >= since))
          : view.dataStart
      const to =
        until !== undefined ? yield* fsio.attempt(() => lowerBound(view, (r) => r.ts > until)) : view.limit
      const keep = makeMatcher(q)
      // the level first: it needs no fields parsed
      const level = levelTest(q)
      const test = entryTest(q)
      const out: Array<LogEntry> = []
      const take: Visit = (id, timestamp, raw, parsed) => {
        const message = keep(raw)
        if (message === undefined || (level !== undefined && !level(parsed?.level))) return true
        const e = makeEntry(id, timestamp, ctx.daemonId, message, parsed)
        if (test === undefined || test(e)) out.push(e)
        return out.length < want
      }
      if (q.lines !== undefined) {
        // from the end: only the records holding the last `lines` matches are read
        let end = to
        while (end > from && out.length < want) {
          end = yield* fsio.attempt(() => {
            const { records, prev } = readBackward(view, from, end)
            for (let i = records.length; i > 0 && out.length < want; ) {
              const j = groupStartBackward(records, i, BACKWARD_GROUP_BYTES)
              visitEntries(
                ctx,
                rawFd,
                records.slice(j, i).map((l) => l.rec),
                true,
                take,
                fields,
              )
              i = j
            }
            return prev
          })
          yield* Effect.yieldNow()
        }
        return batch(out.reverse())
      }
      let pos = from
      while (pos < to) {
        pos = yield* fsio.attempt(() => {
          const { records, next } = readForward(view, pos, to)
          visitForward(
            ctx,
            rawFd,
            records.map((l) => l.rec),
            take,
            fields,
          )
          return next
        })
        yield* Effect.yieldNow()
      }
      return batch(out)
    }),
  )

/** Locates the first record holding an id above `cursor`, preferring the end of the index. */
export const seekAfter = (view: IndexView, last: Located, cursor: number): number => {
  if (last.rec.first <= cursor + 1) return last.start // a tail that keeps up: only the last record is new
  // a tail that nearly keeps up wants one of the last few records: try a small block first
  const { records } = readBackward(view, view.dataStart, view.limit, 4096)
  const head = records[0]
  if (head !== undefined && (head.rec.first <= cursor + 1 || head.start === view.dataStart)) {
    const hit = records.find((l) => lastId(l.rec) > cursor)
    return hit === undefined ? view.limit : hit.start
  }
  return lowerBound(view, (r) => lastId(r) > cursor)
}

/**
 * Calls `use` with the whole records holding ids above `cursor` (in id order, spanning about
 * `budget` raw bytes but at least one record, none starting above `upTo`), the raw file's fd
 * (undefined when it is missing: no records then), the index's generation and its last id.
 * Synchronous: throws a LogStoreError.
 */
export const withRecordsAfter = <A>(
  ctx: ReadContext,
  cursor: number,
  budget: number,
  upTo: number,
  use: (
    records: ReadonlyArray<IndexRecord>,
    rawFd: number | undefined,
    gen: number,
    lastIndexed: number,
  ) => A,
): A => {
  const view = openView(ctx.indexPath)
  let rawFd: number | undefined
  try {
    const last = lastRecord(view)
    const lastIndexed = endOf(view, last).nextId - 1
    if (last === undefined || lastId(last.rec) <= cursor)
      return use([], undefined, view.header.gen, lastIndexed)
    rawFd = fsio.openSyncIfExists(ctx.rawPath)
    if (rawFd === undefined) return use([], undefined, view.header.gen, lastIndexed)
    let pos = seekAfter(view, last, cursor)
    const picked: Array<IndexRecord> = []
    let bytes = 0
    let full = false
    while (pos < view.limit && !full && bytes < budget) {
      const { records, next } = readForward(view, pos, view.limit)
      for (const l of records) {
        full = bytes >= budget || l.rec.first > upTo
        if (full) break
        picked.push(l.rec)
        bytes += l.rec.end - l.rec.off
        pos = l.next
      }
      if (records.length === 0) pos = next
    }
    return use(picked, rawFd, view.header.gen, lastIndexed)
  } finally {
    closeView(view)
    if (rawFd !== undefined) fsio.closeSync(rawFd)
  }
}

/**
 * Entries with an id above `cursor`, in id order, from whole records spanning about
 * `budget` raw bytes (at least one record): what a tail reads per pull. One synchronous
 * step: a tail of a chatty daemon pulls once per line, so this path must be cheap.
 */
export const readAfter = (
  ctx: ReadContext,
  cursor: number,
  budget: number,
  maxEntries = Number.POSITIVE_INFINITY,
): Effect.Effect<Batch, LogStoreError> =>
  fsio.attempt(() =>
    withRecordsAfter(ctx, cursor, budget, Number.POSITIVE_INFINITY, (picked, rawFd, gen, lastIndexed) => {
      const out: Array<LogEntry> = []
      if (rawFd !== undefined) {
        const fields = fieldsSource(ctx.fieldsPath)
        try {
          visitForward(
            ctx,
            rawFd,
            picked,
            (id, timestamp, message, parsed) => {
              if (id > cursor) out.push(makeEntry(id, timestamp, ctx.daemonId, message, parsed))
              return out.length < maxEntries
            },
            fields,
          )
        } finally {
          fields.close()
        }
      }
      return { gen, entries: out, lastId: lastIndexed }
    }),
  )

/** What the index holds right now. */
export interface LogStats {
  readonly gen: number
  /** First id still stored (retention drops the oldest); `lastId + 1` when nothing is stored. */
  readonly firstId: number
  readonly lastId: number
  /** Raw bytes still referenced: `[startOffset, endOffset)`. */
  readonly startOffset: number
  readonly endOffset: number
}

export const readStats = (ctx: ReadContext): Effect.Effect<LogStats, LogStoreError> =>
  fsio.attempt(() => readStatsSync(ctx))

/** `readStats` for synchronous code: throws a LogStoreError. */
export const readStatsSync = (ctx: ReadContext): LogStats =>
  withView(ctx.indexPath, (view) => {
    const end = endOf(view, lastRecord(view))
    return {
      gen: view.header.gen,
      firstId: view.header.next,
      lastId: end.nextId - 1,
      startOffset: view.header.off,
      endOffset: end.end,
    }
  })

/** The stats as a follower knows them (the same as the index says, while it holds the lock). */
export const followerStats = (f: FollowerState): LogStats => ({
  gen: f.gen,
  firstId: f.first,
  lastId: f.nextId - 1,
  startOffset: f.base,
  endOffset: f.lineStart,
})
