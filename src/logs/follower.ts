import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Clock, Effect, PubSub } from "effect"
import type { DaemonLog, FollowerState } from "./daemonLog.js"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import {
  encodeRecord,
  endOf,
  type IndexHeader,
  lastRecord,
  lowerBound,
  recordAtOrAfter,
  repairIndex,
  scopedView,
  withView,
  writeIndexAtomic,
} from "./indexFile.js"
import { countPieces } from "./split.js"

/** The resolved store options the follower needs. */
export interface FollowerConfig {
  readonly chunkBytes: number
  readonly maxLineBytes: number
  readonly pollMillis: number
  readonly flushAfterMillis: number
  readonly maxBytes: number
  readonly fallocate: string
}

/** Store-wide retention state: punching holes is switched off after the first failure. */
export interface RetentionState {
  punchDisabled: boolean
}

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

const reopenIndex = (d: DaemonLog, f: FollowerState) =>
  Effect.gen(function* () {
    yield* fsio.close(f.idxFd)
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
        if (truncateRaw) yield* fsio.truncateIfExists(d.paths.rawPath)
        const f = d.follower
        if (f !== undefined) {
          f.gen = header.gen
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

/** `fallocate --punch-hole --offset 0 --length <n> <file>`; the error output on failure. */
const punchHole = (cmd: string, path: string, length: number): Effect.Effect<string | undefined> =>
  Effect.async((resume) => {
    execFile(
      cmd,
      ["--punch-hole", "--offset", "0", "--length", String(length), path],
      { timeout: 30_000 },
      (err, _stdout, stderr) =>
        resume(
          Effect.succeed(err ? `${err.message}${stderr ? `: ${String(stderr).trim()}` : ""}` : undefined),
        ),
    )
  })

/**
 * Releases the oldest half of the daemon's stored log: copies those raw bytes to the
 * archive, rewrites the index without their records, then punches them out of the raw
 * file (offsets stay valid: the writer appends with O_APPEND). Mutex held.
 */
const retain = (d: DaemonLog, f: FollowerState, rawFd: number, cfg: FollowerConfig, rs: RetentionState) =>
  Effect.scoped(
    Effect.gen(function* () {
      const view = yield* scopedView(d.paths.indexPath)
      const cut = yield* fsio.attempt(() => {
        const rawTarget = f.base + Math.floor((f.lineStart - f.base) / 2)
        let cutPos = f.lineStart - f.base > cfg.maxBytes ? lowerBound(view, (r) => r.off >= rawTarget) : 0
        if (f.idxSize > cfg.maxBytes) {
          const mid = recordAtOrAfter(view, view.dataStart + Math.floor((view.limit - view.dataStart) / 2))
          cutPos = Math.max(cutPos, mid?.start ?? view.limit)
        }
        return recordAtOrAfter(view, cutPos) ?? lastRecord(view) // keep at least the newest record
      })
      if (cut === undefined || cut.rec.off <= f.base) return
      const { archivePath, indexPath, rawPath } = d.paths
      yield* Effect.scoped(
        Effect.gen(function* () {
          const tmp = `${archivePath}.tmp`
          const out = yield* fsio.scopedOpen(tmp, "w")
          yield* fsio.copyRange(rawFd, rawPath, f.base, cut.rec.off, out, tmp)
          yield* fsio.rename(tmp, archivePath)
        }),
      )
      const failure = yield* rewriting(
        d,
        Effect.gen(function* () {
          yield* writeIndexAtomic(
            indexPath,
            { gen: f.gen, next: cut.rec.first, off: cut.rec.off, ts: view.header.ts },
            { view, from: cut.start, to: view.limit },
          )
          yield* reopenIndex(d, f)
          f.base = cut.rec.off
          return yield* punchHole(cfg.fallocate, rawPath, cut.rec.off)
        }),
      )
      if (failure !== undefined && !rs.punchDisabled) {
        rs.punchDisabled = true
        yield* Effect.logWarning(
          `log retention: cannot punch holes with ${cfg.fallocate} (${failure}); raw log files are kept whole and will grow without bound`,
        )
      }
    }),
  )

const appendRecord = (
  d: DaemonLog,
  f: FollowerState,
  count: number,
  end: number,
  now: number,
): Effect.Effect<void, LogStoreError> =>
  Effect.gen(function* () {
    const late = end <= f.lateEnd
    const ts = Math.max(late ? f.lateTs : now, f.lastTs)
    const line = encodeRecord({ first: f.nextId, n: count, off: f.lineStart, end, ts, late })
    // persist first, then tell the tails: a crash between the two loses no index record
    yield* fsio.writeAllSync(f.idxFd, line, d.paths.indexPath)
    f.nextId += count
    f.lineStart = end
    f.lastTs = ts
    f.idxSize += Buffer.byteLength(line)
    yield* PubSub.publish(d.changed, undefined)
  })

/**
 * A new daemon will start writing at raw offset `size` (called by `prepare` while
 * following): a partial last line of the previous daemon must become an entry of its own.
 */
export const markBoundary = (d: DaemonLog, f: FollowerState, size: number, cfg: FollowerConfig) =>
  Effect.gen(function* () {
    if (f.pos < size) {
      f.boundary ??= size // two restarts before the follower caught up: flush at the first
      return
    }
    if (f.carry === undefined) return
    const { count } = countPieces(f.carry, 0, f.carry.length, cfg.maxLineBytes, true)
    const end = f.lineStart + f.carry.length
    f.carry = undefined
    yield* appendRecord(d, f, count, end, yield* Clock.currentTimeMillis)
  })

type StepResult = "more" | "idle"

/** How much rarer the fallback poll is while fs.watch reports changes (500 ms → 5 s). */
const WATCHED_POLL_FACTOR = 10

/**
 * "The file changed" from fs.watch, remembered until the follower waits for it; the wait
 * also ends after a timeout (the poll fallback). A plain callback and one timer per wait:
 * the follower waits once per write of a chatty daemon, so this path must be cheap.
 */
const makeWaker = () => {
  let signaled = false
  let pending: (() => void) | undefined
  return {
    notify: () => {
      if (pending !== undefined) pending()
      else signaled = true
    },
    /** True when woken by a change event, false when the time ran out. */
    wait: (millis: number): Effect.Effect<boolean> =>
      Effect.async<boolean>((resume) => {
        if (signaled) {
          signaled = false
          resume(Effect.succeed(true))
          return
        }
        const done = (notified: boolean) => {
          clearTimeout(timer)
          pending = undefined
          resume(Effect.succeed(notified))
        }
        const timer = setTimeout(() => done(false), millis)
        pending = () => done(true)
        return Effect.sync(() => {
          clearTimeout(timer)
          pending = undefined
        })
      }),
  }
}

/**
 * Resumes from the index (last complete record; torn tail cut first), then indexes the raw
 * file forever: fs.watch wake-ups with a poll fallback. Scoped: its fds and watcher.
 */
export const follow = (d: DaemonLog, cfg: FollowerConfig, rs: RetentionState) =>
  Effect.gen(function* () {
    const { rawPath, indexPath } = d.paths
    yield* fsio.ensureFile(rawPath)
    const rawFd = yield* fsio.scopedOpen(rawPath, "r")

    yield* d.mutex.withPermits(1)(
      Effect.gen(function* () {
        yield* repairIndex(indexPath)
        const resumed = yield* fsio.attempt(() =>
          withView(indexPath, (view) => ({ header: view.header, ...endOf(view, lastRecord(view)) })),
        )
        const st = yield* fsio.fstat(rawFd, rawPath)
        const idxFd = yield* fsio.open(indexPath, "a")
        const idxSize = (yield* fsio.fstat(idxFd, indexPath)).size
        const pending = d.pendingLateEnd
        d.pendingLateEnd = undefined
        d.follower = {
          gen: resumed.header.gen,
          nextId: resumed.nextId,
          pos: resumed.end,
          lineStart: resumed.end,
          carry: undefined,
          lastTs: resumed.ts,
          base: resumed.header.off,
          idxFd,
          idxSize,
          lateEnd: pending ?? st.size,
          lateTs: Math.max(resumed.ts, Math.floor(st.mtimeMs)),
          // with nothing unread before it, the boundary changes nothing
          boundary: pending !== undefined && pending > resumed.end ? pending : undefined,
          lastGrowth: yield* Clock.currentTimeMillis,
        }
        // the raw file shrank while nobody followed it (truncated by hand, or a clear cut short)
        if (st.size < resumed.end) {
          yield* startGeneration(d, false)
          d.follower.lateEnd = pending ?? st.size // what it holds now was written while we were away
        }
      }),
    )
    yield* Effect.addFinalizer(() =>
      d.mutex.withPermits(1)(
        Effect.gen(function* () {
          if (d.follower !== undefined) yield* fsio.close(d.follower.idxFd)
          d.follower = undefined
        }),
      ),
    )

    const wake = makeWaker()
    let watching = false
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        try {
          const w = fs.watch(rawPath, { persistent: false }, wake.notify)
          w.on("error", () => {
            watching = false // the poll fallback keeps working, at its own pace again
          })
          watching = true
          return w
        } catch {
          return undefined // e.g. no inotify watches left: poll only
        }
      }),
      (w) => Effect.sync(() => w?.close()),
    )

    const step: Effect.Effect<StepResult, LogStoreError> = Effect.gen(function* () {
      const f = d.follower!
      if (f.boundary !== undefined && f.boundary <= f.pos) f.boundary = undefined
      let limit = cfg.chunkBytes
      if (f.pos < f.lateEnd) limit = Math.min(limit, f.lateEnd - f.pos)
      if (f.boundary !== undefined && f.pos < f.boundary) limit = Math.min(limit, f.boundary - f.pos)
      const chunk = yield* fsio.readChunkSync(rawFd, limit, f.pos, rawPath)
      const now = yield* Clock.currentTimeMillis
      if (chunk === undefined) {
        const size = yield* fsio.fstatSizeSync(rawFd, rawPath)
        if (size < f.pos) {
          yield* startGeneration(d, false)
          return "more"
        }
        if (f.carry !== undefined && now - f.lastGrowth >= cfg.flushAfterMillis) {
          // a partial line that stopped growing: an entry of its own (`printf "no newline"`)
          const { count } = countPieces(f.carry, 0, f.carry.length, cfg.maxLineBytes, true)
          const end = f.lineStart + f.carry.length
          f.carry = undefined
          yield* appendRecord(d, f, count, end, now)
          return "more"
        }
        return "idle"
      }
      const n = chunk.length
      const data = f.carry === undefined ? chunk : Buffer.concat([f.carry, chunk])
      f.pos += n
      f.lastGrowth = now
      let { count, rest } = countPieces(data, 0, data.length, cfg.maxLineBytes, false)
      if (f.pos === f.boundary) {
        // the previous daemon's unterminated last line must not merge with the new daemon's first
        f.boundary = undefined
        if (rest < data.length) {
          count += countPieces(data, rest, data.length, cfg.maxLineBytes, true).count
          rest = data.length
        }
      }
      const end = f.lineStart + rest
      f.carry = rest < data.length ? Buffer.from(data.subarray(rest)) : undefined
      if (count > 0) {
        yield* appendRecord(d, f, count, end, now)
        if (!rs.punchDisabled && (f.lineStart - f.base > cfg.maxBytes || f.idxSize > cfg.maxBytes))
          yield* retain(d, f, rawFd, cfg, rs)
      }
      // a short read reached the end: wait for the next change event instead of reading 0 bytes
      // (a write that raced this read has queued one already)
      return n < limit ? "idle" : "more"
    })

    const waitForGrowth = Effect.gen(function* () {
      const f = d.follower
      // with a working watcher, polling is only a safety net: idle daemons cost next to nothing
      let wait = watching ? cfg.pollMillis * WATCHED_POLL_FACTOR : cfg.pollMillis
      if (f?.carry !== undefined) {
        const now = yield* Clock.currentTimeMillis
        wait = Math.max(10, Math.min(wait, f.lastGrowth + cfg.flushAfterMillis - now))
      }
      timedOut = !(yield* wake.wait(wait))
    })

    let timedOut = false
    return yield* Effect.forever(
      Effect.gen(function* () {
        const before = d.follower?.pos
        const r = yield* d.mutex.withPermits(1)(step)
        // New bytes that a poll found and the watcher never announced: it misses events (say, its
        // queue overflowed), so poll at full pace from now on.
        if (timedOut && watching && d.follower !== undefined && d.follower.pos !== before) watching = false
        timedOut = false
        yield* r === "idle" ? waitForGrowth : Effect.yieldNow()
      }),
    )
  })
