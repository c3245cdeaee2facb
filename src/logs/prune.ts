// Pruning by age and by count (time_retention, line_retention): which entries go, and releasing
// exactly those (a record is cut in two where the first kept entry falls inside it). The bytes
// are punched out of the raw and fields files as size retention does (retention.ts).
import { Effect } from "effect"
import type { DaemonLog } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import { reopenIndex, rewriting } from "./generation.js"
import {
  encodeRecord,
  endOf,
  type IndexRecord,
  lastId,
  lastRecord,
  lowerBound,
  recordAtOrAfter,
  scopedView,
} from "./indexFile.js"
import { writeIndexAtomic } from "./indexWrite.js"
import { punchHole } from "./retention.js"
import { splitPieces } from "./split.js"

/** What to keep: at most `lines` newest entries, none read before `olderThan` (epoch ms). */
export interface PruneLimits {
  readonly lines?: number
  readonly olderThan?: number
}

/** The entries a pruning would release: ids `[firstId, upTo]`; `ageUpTo` of them by age. */
export interface PruneCut {
  readonly gen: number
  readonly firstId: number
  readonly upTo: number
  readonly ageUpTo: number
}

/** Which stored entries fall outside `limits` (none: `upTo < firstId`). */
export const pruneCut = (d: DaemonLog, limits: PruneLimits): Effect.Effect<PruneCut, LogStoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const view = yield* scopedView(d.paths.indexPath)
      return yield* fsio.attempt(() => {
        const last = lastRecord(view)
        const stored = endOf(view, last).nextId - 1
        const firstId = view.header.next
        let ageUpTo = firstId - 1
        const cutoff = limits.olderThan
        if (cutoff !== undefined && last !== undefined) {
          // records keep ts in order: the first one read at or after the cutoff is kept, and all after it
          const keep = recordAtOrAfter(
            view,
            lowerBound(view, (r) => r.ts >= cutoff),
          )
          ageUpTo = keep === undefined ? lastId(last.rec) : keep.rec.first - 1
        }
        const countUpTo = limits.lines === undefined ? firstId - 1 : stored - limits.lines
        return { gen: view.header.gen, firstId, upTo: Math.max(ageUpTo, countUpTo), ageUpTo }
      })
    }),
  )

/** Where entry `id` of `rec` starts: in the raw file, and in the fields file when it has one. */
const splitPoint = (d: DaemonLog, rec: IndexRecord, id: number) =>
  fsio.attempt(() => {
    const k = id - rec.first
    const rawFd = fsio.openSync(d.paths.rawPath, "r")
    let off = rec.off
    try {
      const buf = fsio.readRangeSync(rawFd, rec.off, rec.end - rec.off, d.paths.rawPath)
      let i = 0
      splitPieces(buf, 0, buf.length, d.ctx.maxLine, true, (s) => {
        if (i++ === k) off = rec.off + s
      })
    } finally {
      fsio.closeSync(rawFd)
    }
    let fo = rec.fo
    if (rec.fo !== undefined && rec.fe !== undefined) {
      const fd = fsio.openSync(d.paths.fieldsPath, "r")
      try {
        const buf = fsio.readRangeSync(fd, rec.fo, rec.fe - rec.fo, d.paths.fieldsPath)
        let at = 0
        for (let i = 0; i < k; i++) at = buf.indexOf(10, at) + 1
        fo = rec.fo + at
      } finally {
        fsio.closeSync(fd)
      }
    }
    return { off, fo }
  })

/**
 * Releases the entries with an id up to `upTo` (of generation `gen`; nothing when the log was
 * cleared meanwhile): the index is rewritten to start at `upTo + 1` (its record cut in two when
 * needed), then the bytes before it are punched out of the raw and fields files. Call it with
 * the daemon's mutex held. Returns how many entries went; a failed punch is said in `punch`.
 */
export const releaseUpTo = (
  d: DaemonLog,
  gen: number,
  upTo: number,
  fallocate: string,
): Effect.Effect<{ readonly released: number; readonly punch?: string }, LogStoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const view = yield* scopedView(d.paths.indexPath)
      const firstId = view.header.next
      if (view.header.gen !== gen || upTo < firstId) return { released: 0 }
      const found = yield* fsio.attempt(() => ({
        keep: recordAtOrAfter(
          view,
          lowerBound(view, (r) => lastId(r) > upTo),
        ),
        last: lastRecord(view),
      }))
      const { keep, last } = found
      if (last === undefined) return { released: 0 }
      // every entry goes (all older than time_retention): the index starts after the last one
      let keepFrom = lastId(last.rec) + 1
      let off = last.rec.end
      let fo = last.rec.fe
      let head = ""
      let copyFrom = view.limit
      if (keep !== undefined) {
        const rec = keep.rec
        keepFrom = Math.max(upTo + 1, rec.first)
        off = rec.off
        fo = rec.fo
        copyFrom = keep.start
        if (keepFrom > rec.first) {
          const at = yield* splitPoint(d, rec, keepFrom)
          off = at.off
          fo = at.fo
          head = encodeRecord({
            ...rec,
            first: keepFrom,
            n: rec.first + rec.n - keepFrom,
            off,
            ...(fo !== undefined && { fo }),
          })
          copyFrom = keep.next
        }
      }
      const f = d.follower
      const punch = yield* rewriting(
        d,
        Effect.gen(function* () {
          yield* writeIndexAtomic(
            d.paths.indexPath,
            { gen, next: keepFrom, off, ts: view.header.ts },
            { view, from: copyFrom, to: view.limit },
            head,
          )
          if (f !== undefined) {
            yield* reopenIndex(d, f)
            f.first = keepFrom
            f.base = off
          }
          const failed = yield* punchHole(fallocate, d.paths.rawPath, off)
          if (failed === undefined && fo !== undefined && fo > 0)
            return yield* punchHole(fallocate, d.paths.fieldsPath, fo)
          return failed
        }),
      )
      return { released: keepFrom - firstId, ...(punch !== undefined && { punch }) }
    }),
  )
