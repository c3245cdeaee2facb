import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Clock, Effect, PubSub } from "effect"
import { recoveredText, type StorageProblem, throwInjected } from "../state/storageFaults.js"
import type { DaemonLog, FollowerConfig, FollowerState, RetentionState } from "./daemonLog.js"
import { fsError, isErrno, type LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import { startGeneration } from "./generation.js"
import { emptyView, encodeHeader, encodeRecord, endOf, lastRecord, viewOf } from "./indexFile.js"
import { repairOpenIndex } from "./indexWrite.js"
import { retain } from "./retention.js"
import { countPieces } from "./split.js"
import { fieldsText } from "./structured/fieldsFile.js"
import { appendSupervisorLineSync } from "./supervisorLine.js"

export type { FollowerConfig, RetentionState } from "./daemonLog.js"
export { rewriting, startGeneration } from "./generation.js"

/**
 * Writes the fields lines of a structured daemon's new entries (`bytes` from `f.lineStart` to
 * `end`) and returns where they are; nothing for a text daemon. Written before the record that
 * refers to them: a crash in between leaves unreferenced lines, never a reference to nothing.
 */
const appendFields = (
  d: DaemonLog,
  f: FollowerState,
  bytes: Uint8Array,
  end: number,
  maxLine: number,
): { readonly fo: number; readonly fe: number } | undefined => {
  if (d.format === "text") return undefined
  const { text } = fieldsText(d.format, bytes, 0, end - f.lineStart, maxLine)
  if (f.fldFd === undefined) {
    f.fldFd = fsio.openSync(d.paths.fieldsPath, "a")
    f.fldSize = fsio.sizeSync(f.fldFd, d.paths.fieldsPath)
  }
  const data = Buffer.from(text)
  fsio.writeAllSyncRaw(f.fldFd, data, d.paths.fieldsPath)
  const fo = f.fldSize
  f.fldSize += data.length
  return { fo, fe: f.fldSize }
}

/** Says in the daemon's log that its log files are writable again (best effort: it may fail again). */
const noteRecovered = (d: DaemonLog, rawPath: string, over: StorageProblem): void => {
  try {
    appendSupervisorLineSync(rawPath, recoveredText(over))
  } catch {
    d.health.failed("logs", rawPath, { code: over.code }, () =>
      appendSupervisorLineSync(rawPath, recoveredText(over)),
    )
  }
}

/**
 * Appends one index record for `count` entries ending at raw offset `end` and advances the
 * follower; `bytes` (from `f.lineStart`) are parsed for a structured daemon. Synchronous (lock
 * held); the caller tells the tails (`PubSub.publish(d.changed)`) afterwards: persisted first, so
 * a crash between the two loses no record.
 */
const appendRecord = (
  d: DaemonLog,
  f: FollowerState,
  count: number,
  end: number,
  now: number,
  bytes: Uint8Array,
  maxLine: number,
): void => {
  const late = end <= f.lateEnd
  const ts = Math.max(late ? f.lateTs : now, f.lastTs)
  let line: string
  try {
    throwInjected(d.paths.indexPath)
    const fields = appendFields(d, f, bytes, end, maxLine)
    line = encodeRecord({ first: f.nextId, n: count, off: f.lineStart, end, ts, late, ...fields })
    if (f.idxFd === undefined) {
      // the daemon's first line: the index file is made now, not by every start of a silent daemon
      f.idxFd = fsio.openSync(d.paths.indexPath, "a+")
      const header = encodeHeader({ gen: f.gen, next: f.first, off: f.base, ts: 0 })
      f.idxSize = repairOpenIndex(f.idxFd, d.paths.indexPath, header)
    }
    fsio.writeAllSyncRaw(f.idxFd, line, d.paths.indexPath)
  } catch (error) {
    // counted for `supervisor supervisor status`; the follower starts again from the index
    d.health.failed("logs", d.paths.indexPath, error)
    throw error
  }
  const over = d.health.ok(d.paths.indexPath)
  if (over !== undefined) noteRecovered(d, d.paths.rawPath, over)
  f.nextId += count
  f.lineStart = end
  f.lastTs = ts
  f.idxSize += Buffer.byteLength(line)
}

/**
 * A new daemon will start writing at raw offset `size` (called by `prepare` while
 * following): a partial last line of the previous daemon must become an entry of its own.
 * Synchronous (lock held); true when it appended a record (the tails are to be told).
 */
export const markBoundary = (
  d: DaemonLog,
  f: FollowerState,
  size: number,
  cfg: FollowerConfig,
  now: number,
): boolean => {
  if (f.pos < size) {
    f.boundary ??= size // two restarts before the follower caught up: flush at the first
    return false
  }
  if (f.carry === undefined) return false
  const carry = f.carry
  const { count } = countPieces(carry, 0, carry.length, cfg.maxLineBytes, true)
  const end = f.lineStart + carry.length
  f.carry = undefined
  appendRecord(d, f, count, end, now, carry, cfg.maxLineBytes)
  return true
}

/**
 * What one step of the follower found. `appended`: new records (tell the tails); `retain`: the
 * stored log is over its limit; `shrank`: the raw file is shorter than what was read (cut by
 * hand): a new generation. The last two need the lock across I/O, outside the step.
 */
interface StepResult {
  readonly next: "more" | "idle" | "shrank"
  readonly appended: boolean
  readonly retain: boolean
}

/** Whether the stored log (raw bytes or index) is over the retention limit. */
const overLimit = (f: FollowerState, cfg: FollowerConfig) =>
  f.lineStart - f.base > cfg.maxBytes || f.idxSize > cfg.maxBytes

/**
 * How much rarer the fallback poll is while fs.watch reports changes (500 ms → 30 s): it only
 * catches a change the watcher missed, and each poll of each idle daemon is a wake-up of the
 * supervisor (200 daemons polled every 5 s cost it ~0.4% of a core, docs/benchmarks.md).
 */
const WATCHED_POLL_FACTOR = 60

/**
 * "The file changed" from fs.watch, remembered until the follower waits for it; the wait
 * also ends after a timeout (the poll fallback). A plain callback and one timer per wait:
 * the follower waits once per write of a chatty daemon, so this path must be cheap.
 */
export const makeWaker = () => {
  let signaled = false
  let pending: (() => void) | undefined
  return {
    notify: () => {
      if (pending !== undefined) pending()
      else signaled = true
    },
    /**
     * True when woken by a change event, false when the time ran out. `quiet`, if given, is asked
     * when the time runs out: true (nothing to read) waits as long again without waking the
     * fiber, so an idle daemon's safety poll is one `fstat` in a timer (200 daemons woken at
     * once every 30 s took the supervisor ~15 ms).
     */
    wait: (millis: number, quiet?: () => boolean): Effect.Effect<boolean> =>
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
        const timedOut = () => {
          if (quiet?.() === true) timer = setTimeout(timedOut, millis)
          else done(false)
        }
        let timer = setTimeout(timedOut, millis)
        pending = () => done(true)
        return Effect.sync(() => {
          clearTimeout(timer)
          pending = undefined
        })
      }),
  }
}

/** What a follower holds open: released by `closeFollower`. */
export interface FollowerHandles {
  readonly rawFd: number
  readonly watcher: fs.FSWatcher | undefined
  readonly wake: ReturnType<typeof makeWaker>
  /** False once the watcher failed or missed a change: poll at full pace. */
  watching: boolean
  /** The raw file is shorter than the index says (cut while nobody followed): a new generation is due. */
  readonly shrank: boolean
}

/**
 * Starts following: resumes from the index (torn tail cut first; created when missing), opens
 * the raw file for reading and watches it. One synchronous block (call it holding the lock):
 * a start of 50 daemons starts 50 followers, and each Effect step costs there.
 */
export const openFollower = (d: DaemonLog, now: number): FollowerHandles => {
  const { rawPath, indexPath } = d.paths
  let rawFd: number
  try {
    rawFd = fs.openSync(rawPath, fs.constants.O_RDONLY | fs.constants.O_CREAT, 0o600)
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw fsError("open", rawPath, error)
    fs.mkdirSync(nodePath.dirname(rawPath), { recursive: true, mode: 0o700 })
    rawFd = fsio.openSync(rawPath, fs.constants.O_RDONLY | fs.constants.O_CREAT)
  }
  let idxFd: number | undefined
  try {
    // A missing index is an empty one, made when the first line is (creating a file is a
    // fifth of a start's cost on some disks, and a daemon that prints nothing needs none).
    idxFd = fsio.openSyncIfExists(indexPath, fs.constants.O_RDWR | fs.constants.O_APPEND)
    const idxSize = idxFd === undefined ? 0 : repairOpenIndex(idxFd, indexPath)
    const view = idxFd === undefined ? emptyView(indexPath) : viewOf(indexPath, idxFd, idxSize)
    const resumed = endOf(view, lastRecord(view))
    const st = fsio.fstatSync(rawFd, rawPath)
    const pending = d.pendingLateEnd
    d.pendingLateEnd = undefined
    d.follower = {
      gen: view.header.gen,
      first: view.header.next,
      nextId: resumed.nextId,
      pos: resumed.end,
      lineStart: resumed.end,
      carry: undefined,
      lastTs: resumed.ts,
      base: view.header.off,
      idxFd,
      idxSize,
      fldFd: undefined,
      fldSize: 0,
      lateEnd: pending ?? st.size,
      lateTs: Math.max(resumed.ts, Math.floor(st.mtimeMs)),
      // with nothing unread before it, the boundary changes nothing
      boundary: pending !== undefined && pending > resumed.end ? pending : undefined,
      lastGrowth: now,
    }
    const wake = makeWaker()
    let watcher: fs.FSWatcher | undefined
    try {
      watcher = fs.watch(rawPath, { persistent: false }, wake.notify)
    } catch {
      // e.g. no inotify watches left: poll only
    }
    const handles: FollowerHandles = {
      rawFd,
      wake,
      watcher,
      watching: watcher !== undefined,
      shrank: st.size < resumed.end,
    }
    watcher?.on("error", () => {
      handles.watching = false // the poll fallback keeps working, at its own pace again
    })
    return handles
  } catch (error) {
    if (idxFd !== undefined) fsio.closeSync(idxFd)
    fsio.closeSync(rawFd)
    d.follower = undefined
    throw error
  }
}

/** Stops following: the watcher, both fds, the state (lock held). */
export const closeFollower = (d: DaemonLog, h: FollowerHandles): void => {
  h.watcher?.close()
  if (d.follower?.idxFd !== undefined) fsio.closeSync(d.follower.idxFd)
  if (d.follower?.fldFd !== undefined) fsio.closeSync(d.follower.fldFd)
  d.follower = undefined
  fsio.closeSync(h.rawFd)
}

/** Reads what the daemon wrote since the last step and indexes its complete lines (lock held). */
export const step = (
  d: DaemonLog,
  f: FollowerState,
  rawFd: number,
  cfg: FollowerConfig,
  now: number,
): StepResult => {
  const { rawPath } = d.paths
  if (f.boundary !== undefined && f.boundary <= f.pos) f.boundary = undefined
  let limit = cfg.chunkBytes
  if (f.pos < f.lateEnd) limit = Math.min(limit, f.lateEnd - f.pos)
  if (f.boundary !== undefined && f.pos < f.boundary) limit = Math.min(limit, f.boundary - f.pos)
  const chunk = fsio.readChunk(rawFd, limit, f.pos, rawPath)
  if (chunk === undefined) {
    const size = fsio.sizeSync(rawFd, rawPath)
    if (size < f.pos) return { next: "shrank", appended: false, retain: false }
    if (f.carry !== undefined && now - f.lastGrowth >= cfg.flushAfterMillis) {
      // a partial line that stopped growing: an entry of its own (`printf "no newline"`)
      const carry = f.carry
      const { count } = countPieces(carry, 0, carry.length, cfg.maxLineBytes, true)
      const end = f.lineStart + carry.length
      f.carry = undefined
      appendRecord(d, f, count, end, now, carry, cfg.maxLineBytes)
      return { next: "more", appended: true, retain: false }
    }
    return { next: "idle", appended: false, retain: false }
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
  if (count > 0) appendRecord(d, f, count, end, now, data, cfg.maxLineBytes)
  return {
    // a short read reached the end: wait for the next change event instead of reading 0 bytes
    // (a write that raced this read has queued one already)
    next: n < limit ? "idle" : "more",
    appended: count > 0,
    retain: count > 0 && overLimit(f, cfg),
  }
}

/**
 * Indexes the raw file forever (from `openFollower`'s handles): fs.watch wake-ups with a poll
 * fallback. A clear or retention, which wait on I/O, hold the lock across it (`withLock`); a
 * step is one synchronous block.
 */
export const followLoop = (
  d: DaemonLog,
  h: FollowerHandles,
  cfg: FollowerConfig,
  rs: RetentionState,
): Effect.Effect<never, LogStoreError> =>
  Effect.gen(function* () {
    if (h.shrank) {
      yield* d.mutex.withLock(
        Effect.gen(function* () {
          const f = d.follower
          if (f === undefined) return
          const lateEnd = f.lateEnd
          yield* startGeneration(d, false)
          // what it holds now was written while we were away
          if (d.follower !== undefined) d.follower.lateEnd = lateEnd
        }),
      )
    }
    let timedOut = false
    /** What a step would find idle: no partial line to flush, the raw file as long as what was read. */
    const quiet = (): boolean => {
      const f = d.follower
      if (f === undefined || f.carry !== undefined) return false
      try {
        return fs.fstatSync(h.rawFd).size === f.pos
      } catch {
        return false // the step says what is wrong
      }
    }
    const waitForGrowth = (now: number) => {
      const f = d.follower
      // with a working watcher, polling is only a safety net: idle daemons cost next to nothing
      let wait = h.watching ? cfg.pollMillis * WATCHED_POLL_FACTOR : cfg.pollMillis
      if (f?.carry !== undefined)
        wait = Math.max(10, Math.min(wait, f.lastGrowth + cfg.flushAfterMillis - now))
      return h.wake.wait(wait, quiet)
    }
    for (;;) {
      const before = d.follower?.pos
      const now = yield* Clock.currentTimeMillis
      const r = yield* d.mutex.sync(() =>
        d.follower === undefined ? undefined : step(d, d.follower, h.rawFd, cfg, now),
      )
      if (r === undefined) return yield* Effect.never // closed under us (cannot happen while this runs)
      if (r.appended) yield* PubSub.publish(d.changed, undefined)
      if (r.next === "shrank" || (r.retain && !rs.punchDisabled))
        yield* d.mutex.withLock(
          Effect.suspend(() => {
            const f = d.follower
            if (f === undefined) return Effect.void
            if (r.next === "shrank") return Effect.asVoid(startGeneration(d, false))
            // a clear may have come first
            return overLimit(f, cfg) && !rs.punchDisabled ? retain(d, f, h.rawFd, cfg, rs) : Effect.void
          }),
        )
      // New bytes that a poll found and the watcher never announced: it misses events (say, its
      // queue overflowed), so poll at full pace from now on.
      if (timedOut && h.watching && d.follower !== undefined && d.follower.pos !== before) h.watching = false
      timedOut = false
      if (r.next === "idle") timedOut = !(yield* waitForGrowth(now))
      else yield* Effect.yieldNow()
    }
  })
