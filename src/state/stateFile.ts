import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect, Either, Schema } from "effect"
import * as fsAsync from "./fsAsync.js"
import { journalPathOf, parseJsonText, replayJournal } from "./journal.js"
import { replaceFile } from "./replaceFile.js"
import { emptyState, PersistentState } from "./State.js"
import { throwInjected } from "./storageFaults.js"

// The state file on disk: its text, its atomic replacement, the appends to its journal
// (journal.ts) and reading both back.

const decode = Schema.decodeUnknownEither(PersistentState)

/**
 * The file's form of a state. Its schema has no transformations, so the state is its own encoded
 * form (the compiler checks that it is assignable): running `Schema.encodeSync` over every daemon
 * record on every write cost the supervisor ~30 ms of a start of 50 daemons.
 */
const encoded = (s: PersistentState): typeof PersistentState.Encoded => s

/** Each daemon record's JSON text: records are immutable, so a write encodes only the changed ones. */
const recordTexts = new WeakMap<object, string>()

/** A daemon record's JSON text, made once per record (the state file and its journal share it). */
export const recordJson = (record: object): string => {
  let text = recordTexts.get(record)
  if (text === undefined) {
    text = JSON.stringify(record)
    recordTexts.set(record, text)
  }
  return text
}

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
    for (const [id, record] of Object.entries(file.daemons))
      lines.push(`    ${JSON.stringify(id)}: ${recordJson(record)}`)
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
  await fsAsync.mkdir(dir, { recursive: true, mode: 0o700 })
  throwInjected(file)
  const tmp = tempPathFor(file)
  try {
    await fsAsync.withFd(tmp, "w", 0o600, async (fd) => {
      await fsAsync.writeAll(fd, text)
      await fsAsync.fsync(fd)
    })
    await fsAsync.rename(tmp, file)
  } catch (e) {
    // a half-written temp file would hold on to the space a full disk needs back
    await fsAsync.rm(tmp, { force: true })
    throw e
  }
  try {
    await fsAsync.withFd(dir, "r", undefined, fsAsync.fsync)
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/** Appends `text` to `file` (created with mode 0600) and syncs its data before returning. */
export const appendSynced = (file: string, text: string): void => {
  throwInjected(file)
  const fd = fs.openSync(file, "a", 0o600)
  try {
    fs.writeFileSync(fd, text)
    fs.fdatasyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** `appendSynced` off the event loop. */
export const appendSyncedAsync = async (file: string, text: string): Promise<void> => {
  throwInjected(file)
  await fsAsync.withFd(file, "a", 0o600, async (fd) => {
    await fsAsync.writeAll(fd, text)
    await fsAsync.fdatasync(fd)
  })
}

/**
 * The state file's text and its journal's, read as one: a supervisor that writes a new base
 * between the two reads (then a journal for it) is seen, and both are read again.
 */
const readBoth = (file: string): { readonly base: string; readonly journal: string | undefined } => {
  for (let attempt = 0; ; attempt++) {
    const fd = fs.openSync(file, "r")
    try {
      const base = fs.readFileSync(fd, "utf8")
      let journal: string | undefined
      try {
        journal = fs.readFileSync(journalPathOf(file), "utf8")
      } catch {
        journal = undefined // none yet, or unreadable: the base alone
      }
      if (attempt >= 4 || fs.statSync(file).ino === fs.fstatSync(fd).ino) return { base, journal }
    } finally {
      fs.closeSync(fd)
    }
  }
}

/** What the state file and its journal hold, read without changing anything. */
export type StateOnDisk =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Unreadable"; readonly message: string }
  | { readonly _tag: "Corrupt" }
  /** `journalIgnored`: the journal's records did not decode; `state` is the state file's alone. */
  | { readonly _tag: "Loaded"; readonly state: PersistentState; readonly journalIgnored: boolean }

/** Reads the state file and its journal (what a supervisor starting now would load). */
export const stateOnDisk = (file: string): StateOnDisk => {
  let texts: { readonly base: string; readonly journal: string | undefined }
  try {
    texts = readBoth(file)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { _tag: "Missing" }
    return { _tag: "Unreadable", message: (e as Error).message }
  }
  const parsed = parseJsonText(texts.base)
  if (parsed === undefined) return { _tag: "Corrupt" }
  const replayed = replayJournal(parsed, texts.base, texts.journal)
  const r = decode(replayed.value)
  if (Either.isRight(r)) return { _tag: "Loaded", state: r.right, journalIgnored: false }
  const alone = replayed.lines > 0 ? decode(parsed) : r
  return Either.isRight(alone)
    ? { _tag: "Loaded", state: alone.right, journalIgnored: true }
    : { _tag: "Corrupt" }
}

/**
 * Reads the state file and its journal; a missing file is an empty state, a corrupt one is set
 * aside and reported (its journal, which applies to it only, is then ignored).
 */
export const readStateFile = (file: string): { state: PersistentState; warnings: Array<string> } => {
  const read = stateOnDisk(file)
  switch (read._tag) {
    case "Missing":
      return { state: emptyState(), warnings: [] }
    case "Unreadable":
      return {
        state: emptyState(),
        warnings: [`cannot read ${file}: ${read.message}; starting with an empty state`],
      }
    case "Loaded":
      return {
        state: read.state,
        warnings: read.journalIgnored
          ? [
              `the state journal ${journalPathOf(file)} holds records that are not valid; the supervisor starts from ${file} alone (the latest status changes it holds are lost)`,
            ]
          : [],
      }
    case "Corrupt":
      break
  }
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

/** A file's identity and size as a write left it: another writer's change shows in one of them. */
export interface FileMark {
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
}

/** `file`'s mark now; undefined when it is gone or not a regular file. */
export const fileMark = (file: string): FileMark | undefined => {
  try {
    const st = fs.statSync(file)
    return st.isFile() ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : undefined
  } catch {
    return undefined
  }
}

/** Whether `file` is still as the mark says. */
export const sameMark = (file: string, mark: FileMark | undefined): boolean => {
  const now = fileMark(file)
  return (
    now !== undefined &&
    mark !== undefined &&
    now.ino === mark.ino &&
    now.size === mark.size &&
    now.mtimeMs === mark.mtimeMs
  )
}

/**
 * How a state snapshot reaches the disk: `text` replaces `file` atomically, or with `append`
 * is appended to it and synced (the journal).
 */
export type StateWriter = (file: string, text: string, append?: boolean) => Effect.Effect<void, unknown>

/** On the event loop: what deterministic tests (TestClock) use. */
export const syncWriter: StateWriter = (file, text, append) =>
  Effect.try(() => (append ? appendSynced(file, text) : writeFileAtomic(file, text)))

/** Off the event loop (the supervisor process): the writes and fsyncs run on the thread pool. */
export const asyncWriter: StateWriter = (file, text, append) =>
  Effect.tryPromise(() => (append ? appendSyncedAsync(file, text) : writeFileAtomicAsync(file, text)))
