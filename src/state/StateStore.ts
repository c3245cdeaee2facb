import { Cause, Context, Deferred, Duration, Effect, Exit, FiberId, Layer } from "effect"
import { baseHash, journalHeader, journalLine, journalPathOf, recordChanges } from "./journal.js"
import type { DaemonRecord, PersistentState } from "./State.js"
import { StorageHealth } from "./StorageHealth.js"
import {
  asyncWriter,
  type FileMark,
  fileMark,
  readStateFile,
  recordJson,
  type StateWriter,
  sameMark,
  stateText,
  syncWriter,
} from "./stateFile.js"
import { recoveredText } from "./storageFaults.js"

export interface StateStoreShape {
  readonly get: Effect.Effect<PersistentState>
  /** Applies `f` and returns once the result (or a later state) is written atomically. */
  readonly update: (f: (s: PersistentState) => PersistentState) => Effect.Effect<PersistentState>
  /**
   * Applies `f` and returns at once; the write follows in the background, shared with the
   * changes made meanwhile. For the many status changes of a daemon's life: `sync` waits for them.
   */
  readonly record: (f: (s: PersistentState) => PersistentState) => Effect.Effect<PersistentState>
  /**
   * `record` of one daemon's record, set in place in the state's daemons: the status changes of
   * a daemon's life, many a second with many daemons, copy nothing (the writer names the record
   * in the journal).
   */
  readonly recordDaemon: (id: string, record: DaemonRecord) => Effect.Effect<void>
  /** Returns once every change made so far (by `update` or `record`) is written. */
  readonly sync: Effect.Effect<void>
  /** Problems met while loading (a corrupt file that was set aside), for the supervisor log. */
  readonly warnings: ReadonlyArray<string>
}

/**
 * How long the writer waits before writing again while changes keep coming and no `sync` waits:
 * the most a crash of the supervisor in the middle of a burst (a start of many daemons) can lose
 * of it, beyond the write under way.
 */
export const STATE_COALESCE = Duration.millis(20)

/** How long the writer waits before trying again after a failed write (a full disk, say). */
export const STATE_RETRY = Duration.seconds(1)

/**
 * The journal is folded into a new state file once it holds more than the state file's size, or
 * this much: a start of the supervisor reads both, and the journal's lines grow with every change.
 */
export const JOURNAL_MIN_BYTES = 64 * 1024

/** What the state file and its journal hold: the state, the state file's hash and sizes. */
interface OnDisk {
  readonly state: PersistentState
  readonly hash: string
  readonly baseBytes: number
  /** 0: no journal for this state file yet (the next line starts one, with its header). */
  readonly journalBytes: number
  /** The files as this store left them: changed by anyone else, the next write is whole. */
  readonly baseMark: FileMark | undefined
  readonly journalMark: FileMark | undefined
}

/** The store, and `stop`: ends the retries of a failing write (the supervisor is exiting). */
const makeStore = (
  file: string,
  write: StateWriter,
  coalesce: Duration.DurationInput,
  retry: Duration.DurationInput,
) =>
  Effect.gen(function* () {
    const health = yield* StorageHealth
    const loaded = readStateFile(file)
    const loadedAt = Date.now()
    for (const message of loaded.warnings)
      health.note({ area: "state", file, code: "corrupt", message, since: loadedAt, failed_writes: 0 })
    let current = loaded.state
    // Group commit: changes apply at once, and one writer at a time writes the latest state
    // until it has written every change: concurrent changes (50 daemons starting together)
    // share one write instead of queueing one fsync each. The bookkeeping below runs in
    // synchronous steps (no fiber switch within one), which is what keeps it consistent.
    let version = 0
    let written = 0
    let writing = false
    // The last write failed: the writer retries until one succeeds, or `stop`.
    let failing = false
    const stopped = Deferred.unsafeMake<void>(FiberId.none)
    const waiters: Array<{ readonly want: number; readonly done: Deferred.Deferred<void> }> = []
    // Between two writes while changes keep coming and nobody waits for them: a start of 50
    // daemons made ~150 writes (each a JSON text of every daemon and two fsyncs) where a few
    // do. A `sync` cuts the pause short.
    let kick: Deferred.Deferred<void> | undefined
    const pause = Effect.suspend(() => {
      if (waiters.length > 0) return Effect.void
      const k = Deferred.unsafeMake<void>(FiberId.none)
      kick = k
      // interruptible: the writer runs uninterruptible, and the race must end its loser
      return Effect.interruptible(Effect.raceFirst(Effect.sleep(coalesce), Deferred.await(k))).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            kick = undefined
          }),
        ),
      )
    })
    const journal = journalPathOf(file)
    // What the files hold; unknown (the first write, or after a failed one): the next write is whole.
    let onDisk: OnDisk | undefined
    /** Daemon records set in place (`recordDaemon`) since the last write began. */
    const touched = new Set<string>()
    /**
     * Writes `snapshot`: as a journal line when only daemon records changed since what the files
     * hold, else (or when the journal has grown past the state file) as a whole new state file.
     */
    const writeSnapshot = (snapshot: PersistentState): Effect.Effect<void, unknown> => {
      const disk = onDisk
      onDisk = undefined // until this write is done
      const changes =
        disk === undefined ||
        disk.journalBytes > Math.max(JOURNAL_MIN_BYTES, disk.baseBytes) ||
        !sameMark(file, disk.baseMark) ||
        (disk.journalBytes > 0 && !sameMark(journal, disk.journalMark))
          ? undefined
          : recordChanges(disk.state, snapshot, touched)
      touched.clear()
      if (disk === undefined || changes === undefined) {
        const text = stateText(snapshot)
        return Effect.tap(write(file, text), () => {
          onDisk = {
            state: snapshot,
            hash: baseHash(text),
            baseBytes: text.length,
            journalBytes: 0,
            baseMark: fileMark(file),
            journalMark: undefined,
          }
        })
      }
      if (changes.set.length === 0 && changes.removed.length === 0) {
        onDisk = { ...disk, state: snapshot }
        return Effect.void
      }
      const line = journalLine(changes, recordJson)
      // a new journal replaces the one of an earlier state file at once (atomically, with its header)
      const text = disk.journalBytes === 0 ? journalHeader(disk.hash) + line : line
      return Effect.tap(write(journal, text, disk.journalBytes > 0), () => {
        onDisk = {
          ...disk,
          state: snapshot,
          journalBytes: disk.journalBytes + text.length,
          journalMark: fileMark(journal),
        }
      })
    }
    const writeLatest = Effect.gen(function* () {
      for (let first = true; written < version; first = false) {
        if (!first) yield* pause
        const snapshot = current
        const at = version
        // Uninterruptible: a write cut short would leave the temp file behind. Whatever goes wrong
        // (even a defect) is counted and logged once, and the writer tries again later: the state
        // in memory stays the truth, and `sync` never waits for a disk that has no room.
        const ok = yield* Effect.suspend(() => writeSnapshot(snapshot)).pipe(
          Effect.as(true),
          Effect.catchAllCause((cause) => {
            const first = !failing
            failing = true
            const error = Cause.squash(cause)
            health.failed("state", file, error)
            return first
              ? Effect.as(
                  Effect.logError(`cannot write the state file ${file}; retrying every second`, cause),
                  false,
                )
              : Effect.succeed(false)
          }),
          Effect.uninterruptible,
        )
        if (ok) {
          written = at
          if (failing) {
            failing = false
            const over = health.ok(file)
            if (over !== undefined) yield* Effect.logWarning(recoveredText(over))
          }
        }
        for (let i = waiters.length - 1; i >= 0; i--) {
          const waiter = waiters[i]!
          if (ok && waiter.want > written) continue
          waiters.splice(i, 1)
          Deferred.unsafeDone(waiter.done, Exit.void)
        }
        if (!ok) {
          // a `sync` (an `update`) cuts the wait short: it gets one more attempt, not a wait
          const k = Deferred.unsafeMake<void>(FiberId.none)
          kick = waiters.length > 0 ? undefined : k
          yield* Effect.interruptible(
            Effect.raceAll([Effect.sleep(retry), Deferred.await(stopped), Deferred.await(k)]),
          ).pipe(
            Effect.ensuring(
              Effect.sync(() => {
                kick = undefined
              }),
            ),
          )
          if (yield* Deferred.isDone(stopped)) break
        }
      }
      writing = false
    })
    // Uninterruptible: a caller interrupted between raising the flag and forking the writer
    // would leave the flag up with no writer, and every later `sync` waiting forever.
    const record = (f: (s: PersistentState) => PersistentState) =>
      Effect.uninterruptible(
        Effect.suspend(() => {
          current = f(current)
          version++
          const next = current
          if (writing) return Effect.succeed(next)
          writing = true
          return Effect.as(Effect.forkDaemon(writeLatest), next)
        }),
      )
    const sync: Effect.Effect<void> = Effect.suspend(() => {
      if (written >= version) return Effect.void
      const done = Deferred.unsafeMake<void>(FiberId.none)
      waiters.push({ want: version, done })
      if (kick !== undefined) Deferred.unsafeDone(kick, Exit.void)
      return Deferred.await(done)
    })
    const store: StateStoreShape = {
      get: Effect.sync(() => current),
      update: (f) => record(f).pipe(Effect.zipLeft(sync)),
      record,
      recordDaemon: (id, r) =>
        Effect.asVoid(
          record((s) => {
            ;(s.daemons as Record<string, DaemonRecord>)[id] = r
            touched.add(id)
            return s
          }),
        ),
      sync,
      warnings: loaded.warnings,
    }
    return { store, stop: Deferred.succeed(stopped, undefined) }
  })

export const makeStateStore = (
  file: string,
  write: StateWriter = syncWriter,
  coalesce: Duration.DurationInput = STATE_COALESCE,
  retry: Duration.DurationInput = STATE_RETRY,
) => Effect.map(makeStore(file, write, coalesce, retry), (s) => s.store)

/** The store until the scope closes: then a write that keeps failing is retried no more. */
export const makeStateStoreScoped = (
  file: string,
  write: StateWriter = syncWriter,
  coalesce: Duration.DurationInput = STATE_COALESCE,
  retry: Duration.DurationInput = STATE_RETRY,
) =>
  Effect.map(
    Effect.acquireRelease(makeStore(file, write, coalesce, retry), (s) => s.stop),
    (s) => s.store,
  )

export class StateStore extends Context.Tag("supervisor/StateStore")<StateStore, StateStoreShape>() {}

export const StateStoreLive = (file: string) =>
  Layer.scoped(StateStore, makeStateStoreScoped(file, asyncWriter))
