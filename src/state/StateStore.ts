import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Context, Effect, Either, Layer, Ref, Schema } from "effect"
import { emptyState, PersistentState } from "./State.js"

export interface StateStoreShape {
  readonly get: Effect.Effect<PersistentState>
  /** Applies `f` and returns once the result (or a later state) is written atomically. */
  readonly update: (f: (s: PersistentState) => PersistentState) => Effect.Effect<PersistentState>
  /** Problems met while loading (a corrupt file that was set aside), for the supervisor log. */
  readonly warnings: ReadonlyArray<string>
}

const decode = Schema.decodeUnknownEither(Schema.parseJson(PersistentState))
const encode = Schema.encodeSync(PersistentState)

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
  const tmp = tempPathFor(file)
  const fd = fs.openSync(tmp, "w", 0o600)
  try {
    fs.writeFileSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, file)
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
  const tmp = tempPathFor(file)
  const handle = await fs.promises.open(tmp, "w", 0o600)
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await fs.promises.rename(tmp, file)
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
  } catch {}
  return {
    state: emptyState(),
    warnings: [
      `the state file ${file} was unreadable (truncated or not valid JSON); it was moved to ${aside} and the supervisor starts with an empty state`,
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
export const makeStateStore = (file: string, write: StateWriter = syncWriter) =>
  Effect.gen(function* () {
    const loaded = readStateFile(file)
    const ref = yield* Ref.make(loaded.state)
    const lock = yield* Effect.makeSemaphore(1)
    // Group commit: every update changes the state at once and then waits until a write that
    // includes it has reached the disk. Concurrent updates (50 daemons starting together)
    // share one write instead of queueing one fsync each.
    let version = 0
    let written = 0
    const flush = (wanted: number) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          if (written >= wanted) return
          const snapshot = yield* Ref.get(ref)
          const at = version
          // Uninterruptible: a write cut short would leave the temp file behind.
          yield* write(file, `${JSON.stringify(encode(snapshot), null, 2)}\n`).pipe(
            Effect.catchAll((e) => Effect.logError(`cannot write the state file ${file}`, e)),
            Effect.uninterruptible,
          )
          written = at
        }),
      )
    const store: StateStoreShape = {
      get: Ref.get(ref),
      update: (f) =>
        Effect.gen(function* () {
          const [mine, next] = yield* Ref.modify(ref, (s) => {
            const n = f(s)
            version++
            return [[version, n] as const, n]
          })
          yield* flush(mine)
          return next
        }),
      warnings: loaded.warnings,
    }
    return store
  })

export class StateStore extends Context.Tag("supervisor/StateStore")<StateStore, StateStoreShape>() {}

export const StateStoreLive = (file: string) => Layer.effect(StateStore, makeStateStore(file, asyncWriter))
