import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Cause, Context, Deferred, Duration, Effect, Either, Exit, FiberId, Layer, Schema } from "effect"
import { replaceFile } from "./replaceFile.js"
import { emptyState, PersistentState } from "./State.js"
import { StorageHealth } from "./StorageHealth.js"
import { recoveredText, throwInjected } from "./storageFaults.js"

export interface StateStoreShape {
  readonly get: Effect.Effect<PersistentState>
  /** Applies `f` and returns once the result (or a later state) is written atomically. */
  readonly update: (f: (s: PersistentState) => PersistentState) => Effect.Effect<PersistentState>
  /**
   * Applies `f` and returns at once; the write follows in the background, shared with the
   * changes made meanwhile. For the many status changes of a daemon's life: `sync` waits for them.
   */
  readonly record: (f: (s: PersistentState) => PersistentState) => Effect.Effect<PersistentState>
  /** Returns once every change made so far (by `update` or `record`) is written. */
  readonly sync: Effect.Effect<void>
  /** Problems met while loading (a corrupt file that was set aside), for the supervisor log. */
  readonly warnings: ReadonlyArray<string>
}

const decode = Schema.decodeUnknownEither(Schema.parseJson(PersistentState))

/**
 * The file's form of a state. Its schema has no transformations, so the state is its own encoded
 * form (the compiler checks that it is assignable): running `Schema.encodeSync` over every daemon
 * record on every write cost the supervisor ~30 ms of a start of 50 daemons.
 */
const encoded = (s: PersistentState): typeof PersistentState.Encoded => s

/** Each daemon record's line of the file: records are immutable, so a write re-encodes only the changed ones. */
const recordTexts = new WeakMap<object, { readonly id: string; readonly text: string }>()

/**
 * The file's text of a state: JSON with a line per daemon record. Each write of a supervisor
 * with 200 daemons stringified all of them (a 250 kB text, several ms on the event loop, many
 * times a second while daemons restart); a record's text is now made once per record.
 */
export const stateText = (s: PersistentState): string => {
  const file = encoded(s)
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(file)) {
    if (value === undefined) continue
    if (key !== "daemons") {
      parts.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      continue
    }
    const lines: Array<string> = []
    for (const [id, record] of Object.entries(file.daemons)) {
      let line = recordTexts.get(record)
      // a record stays under its daemon's ID; the check keeps a shared one right
      if (line === undefined || line.id !== id) {
        line = { id, text: `    ${JSON.stringify(id)}: ${JSON.stringify(record)}` }
        recordTexts.set(record, line)
      }
      lines.push(line.text)
    }
    parts.push(lines.length === 0 ? `  "daemons": {}` : `  "daemons": {\n${lines.join(",\n")}\n  }`)
  }
  return `{\n${parts.join(",\n")}\n}\n`
}

/** The temp file an atomic write of `file` goes through: same directory (so the rename is atomic), per process. */
const tempPathFor = (file: string) =>
  nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}.${process.pid}.tmp`)

/**
 * Writes `text` to `file` so that a crash at any moment leaves either the old or
 * the new content: write a temp file in the same directory, fsync it, rename it
 * over the target, fsync the directory.
 */
export const writeFileAtomic = (file: string, text: string): void => {
  const dir = nodePath.dirname(file)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  throwInjected(file)
  replaceFile(file, tempPathFor(file), text, 0o600)
  try {
    const dirFd = fs.openSync(dir, "r")
    try {
      fs.fsyncSync(dirFd)
    } finally {
      fs.closeSync(dirFd)
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/**
 * `writeFileAtomic` off the event loop: the same steps, with the writes and fsyncs on libuv's
 * thread pool, so that the supervisor keeps spawning and serving while the disk catches up.
 */
export const writeFileAtomicAsync = async (file: string, text: string): Promise<void> => {
  const dir = nodePath.dirname(file)
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 })
  throwInjected(file)
  const tmp = tempPathFor(file)
  try {
    const handle = await fs.promises.open(tmp, "w", 0o600)
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.promises.rename(tmp, file)
  } catch (e) {
    // a half-written temp file would hold on to the space a full disk needs back
    await fs.promises.rm(tmp, { force: true })
    throw e
  }
  try {
    const dirHandle = await fs.promises.open(dir, "r")
    try {
      await dirHandle.sync()
    } finally {
      await dirHandle.close()
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/** Reads the state file; a missing file is an empty state, a corrupt one is set aside and reported. */
export const readStateFile = (file: string): { state: PersistentState; warnings: Array<string> } => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { state: emptyState(), warnings: [] }
    return {
      state: emptyState(),
      warnings: [`cannot read ${file}: ${(e as Error).message}; starting with an empty state`],
    }
  }
  const r = decode(text)
  if (Either.isRight(r)) return { state: r.right, warnings: [] }
  const aside = `${file}.corrupt-${Date.now()}`
  try {
    fs.renameSync(file, aside)
  } catch (e) {
    return {
      state: emptyState(),
      warnings: [
        `the state file ${file} is not valid (truncated or not valid JSON) and could not be moved aside (${(e as Error).message}); the supervisor starts with an empty state: move the file away`,
      ],
    }
  }
  return {
    state: emptyState(),
    warnings: [
      `the state file ${file} was not valid (truncated or not valid JSON); it was kept as ${aside} and the supervisor starts with an empty state: look into that file, then delete it`,
    ],
  }
}

/** How a state snapshot reaches the disk (atomically). */
export type StateWriter = (file: string, text: string) => Effect.Effect<void, unknown>

/** On the event loop: what deterministic tests (TestClock) use. */
export const syncWriter: StateWriter = (file, text) => Effect.try(() => writeFileAtomic(file, text))

/** Off the event loop (the supervisor process): the writes and fsyncs run on the thread pool. */
export const asyncWriter: StateWriter = (file, text) =>
  Effect.tryPromise(() => writeFileAtomicAsync(file, text))

/**
 * The persistent state of the supervisor. Only the supervisor process writes it
 * (it holds the single-instance lock), so serialising writes in-process is enough.
 */
/**
 * How long the writer waits before writing again while changes keep coming and no `sync` waits:
 * the most a crash of the supervisor in the middle of a burst (a start of many daemons) can lose
 * of it, beyond the write under way.
 */
export const STATE_COALESCE = Duration.millis(20)

/** How long the writer waits before trying again after a failed write (a full disk, say). */
export const STATE_RETRY = Duration.seconds(1)

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
    const writeLatest = Effect.gen(function* () {
      for (let first = true; written < version; first = false) {
        if (!first) yield* pause
        const snapshot = current
        const at = version
        // Uninterruptible: a write cut short would leave the temp file behind. Whatever goes wrong
        // (even a defect) is counted and logged once, and the writer tries again later: the state
        // in memory stays the truth, and `sync` never waits for a disk that has no room.
        const ok = yield* Effect.suspend(() => write(file, stateText(snapshot))).pipe(
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
