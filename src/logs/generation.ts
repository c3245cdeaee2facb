// Rewrites of a daemon's index: the seqlock around them and a new generation (a clear, or a raw
// file cut behind the store's back).
import * as nodePath from "node:path"
import { Effect, PubSub } from "effect"
import type { DaemonLog, FollowerState } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import { endOf, type IndexHeader, lastRecord, withView } from "./indexFile.js"
import { writeIndexAtomic } from "./indexWrite.js"

/**
 * Runs `body` with the daemon's files marked as being rewritten (seqlock: epoch odd).
 * Uninterruptible: an API client that disconnects must not leave half a clear behind.
 */
export const rewriting = <A, E, R>(d: DaemonLog, body: Effect.Effect<A, E, R>) =>
  Effect.uninterruptible(
    Effect.acquireUseRelease(
      Effect.sync(() => {
        d.epoch++
      }),
      () => body,
      () =>
        Effect.sync(() => {
          d.epoch++
        }),
    ),
  )

/** Opens the index anew for appending, after a rewrite replaced it. */
export const reopenIndex = (d: DaemonLog, f: FollowerState) =>
  Effect.gen(function* () {
    if (f.idxFd !== undefined) yield* fsio.close(f.idxFd)
    f.idxFd = yield* fsio.open(d.paths.indexPath, "a")
    f.idxSize = (yield* fsio.fstat(f.idxFd, d.paths.indexPath)).size
  })

/** The end of the index as the follower or, when none runs, the file says. */
const currentEnd = (d: DaemonLog) =>
  d.follower !== undefined
    ? Effect.succeed({ gen: d.follower.gen, nextId: d.follower.nextId, ts: d.follower.lastTs })
    : fsio.attempt(() =>
        withView(d.paths.indexPath, (view) => {
          const end = endOf(view, lastRecord(view))
          return { gen: view.header.gen, nextId: end.nextId, ts: end.ts }
        }),
      )

/**
 * Starts a new generation: an empty index whose ids continue, raw offsets from 0. With
 * `truncateRaw` (a clear) the raw file is cut to 0 after the index is rewritten; a crash in
 * between re-indexes the old bytes as a new generation rather than losing track of them.
 * Call with the daemon's mutex held.
 */
export const startGeneration = (d: DaemonLog, truncateRaw: boolean): Effect.Effect<number, LogStoreError> =>
  Effect.gen(function* () {
    const end = yield* currentEnd(d)
    const header: IndexHeader = { gen: end.gen + 1, next: end.nextId, off: 0, ts: end.ts }
    yield* rewriting(
      d,
      Effect.gen(function* () {
        yield* fsio.mkdirp(nodePath.dirname(d.paths.indexPath))
        yield* writeIndexAtomic(d.paths.indexPath, header)
        // the writer keeps its O_APPEND fd: its next write lands at offset 0
        if (truncateRaw) {
          yield* fsio.truncateIfExists(d.paths.rawPath)
          yield* fsio.truncateIfExists(d.paths.fieldsPath) // no record refers to its lines now
        }
        const f = d.follower
        if (f !== undefined) {
          if (truncateRaw) f.fldSize = 0
          f.gen = header.gen
          f.first = header.next
          f.pos = 0
          f.lineStart = 0
          f.carry = undefined
          f.base = 0
          f.lateEnd = 0
          f.boundary = undefined
          yield* reopenIndex(d, f)
        }
      }),
    )
    yield* PubSub.publish(d.changed, undefined)
    return header.gen
  })
