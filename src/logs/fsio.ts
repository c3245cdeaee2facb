import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Effect } from "effect"
import * as fsAsync from "../state/fsAsync.js"
import { fsError, isErrno, LogStoreError } from "./errors.js"

/**
 * Thin Effect wrappers over node:fs. The log files need positional reads, fstat on an
 * open fd, ftruncate and O_APPEND writes, which `@effect/platform`'s FileSystem does not
 * all expose at the fd level; keeping them here keeps the rest of the module readable.
 *
 * Reads, opens and fstat calls are synchronous. They touch local files whose pages were
 * just written (page cache), so each costs microseconds, while a thread-pool round trip of
 * the async API costs far more CPU, and the follower and every tail of a chatty daemon
 * make several per line. Reads are bounded (64 KiB of index, at most about 1 MiB of raw
 * bytes at a time) and long queries yield between blocks, so the event loop is never
 * blocked for long. Bulk copies (retention) stay asynchronous.
 */

export const open = (
  path: string,
  flags: string | number,
  mode = 0o600,
): Effect.Effect<number, LogStoreError> =>
  Effect.try({ try: () => fs.openSync(path, flags, mode), catch: (cause) => fsError("open", path, cause) })

/**
 * Creates `path` if it is missing, as a daemon's writer opens it (`O_APPEND | O_CREAT`, 0600),
 * and its directory (0700) only when that is missing too: one open and one close when both exist,
 * which they do for every start but the first.
 */
export const ensureFile = (path: string): Effect.Effect<void, LogStoreError> =>
  Effect.try({
    try: () => {
      let fd: number
      try {
        fd = fs.openSync(path, "a", 0o600)
      } catch (error) {
        if (!isErrno(error, "ENOENT")) throw error
        fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 })
        fd = fs.openSync(path, "a", 0o600)
      }
      fs.closeSync(fd)
    },
    catch: (cause) => fsError("open", path, cause),
  })

/**
 * The size of the file at `path`, which is created (0600, and its directory 0700) when missing,
 * as a daemon's writer opens it: one `stat` when it exists. Throws a LogStoreError.
 */
export const ensureFileSize = (path: string): number => {
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(path, { throwIfNoEntry: false })
  } catch (cause) {
    throw fsError("stat", path, cause)
  }
  if (st !== undefined) return st.size
  try {
    fs.mkdirSync(nodePath.dirname(path), { recursive: true, mode: 0o700 })
    fs.closeSync(fs.openSync(path, "a", 0o600))
    return fs.statSync(path).size
  } catch (cause) {
    throw fsError("open", path, cause)
  }
}

/** The size of the file at `path`; 0 when it does not exist. */
export const sizeOfSync = (path: string): Effect.Effect<number, LogStoreError> =>
  Effect.try({
    try: () => fs.statSync(path, { throwIfNoEntry: false })?.size ?? 0,
    catch: (cause) => fsError("stat", path, cause),
  })

/** Opens for reading; `undefined` when the file does not exist. */
export const openIfExists = (path: string): Effect.Effect<number | undefined, LogStoreError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(fs.openSync(path, "r"))
    } catch (cause) {
      return isErrno(cause, "ENOENT") ? Effect.succeed(undefined) : Effect.fail(fsError("open", path, cause))
    }
  })

export const close = (fd: number): Effect.Effect<void> =>
  Effect.sync(() => {
    try {
      fs.closeSync(fd)
    } catch {
      // already closed: nothing to release
    }
  })

/** An fd closed when the scope closes. */
export const scopedOpen = (path: string, flags: string | number) =>
  Effect.acquireRelease(open(path, flags), close)

export const scopedOpenIfExists = (path: string) =>
  Effect.acquireRelease(openIfExists(path), (fd) => (fd === undefined ? Effect.void : close(fd)))

/** One pread into `buf[offset, offset + length)`; 0 at end of file. */
export const readAt = (
  fd: number,
  buf: Buffer,
  offset: number,
  length: number,
  position: number,
  path: string,
): Effect.Effect<number, LogStoreError> =>
  length === 0
    ? Effect.succeed(0)
    : Effect.async((resume) => {
        fs.read(fd, buf, offset, length, position, (err, n) =>
          resume(err ? Effect.fail(fsError("read", path, err)) : Effect.succeed(n)),
        )
      })

export const fstat = (fd: number, path: string): Effect.Effect<fs.Stats, LogStoreError> =>
  Effect.try({ try: () => fs.fstatSync(fd), catch: (cause) => fsError("stat", path, cause) })

/** Writes all of `data` at the fd's position (O_APPEND: at the end). Synchronous: one small record. */
export const writeAllSync = (
  fd: number,
  data: Uint8Array | string,
  path: string,
): Effect.Effect<void, LogStoreError> => attempt(() => writeAllSyncRaw(fd, data, path))

export const fsync = (fd: number, path: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.fsync(fd, (err) => resume(err ? Effect.fail(fsError("fsync", path, err)) : Effect.succeed(undefined)))
  })

export const ftruncate = (fd: number, length: number, path: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.ftruncate(fd, length, (err) =>
      resume(err ? Effect.fail(fsError("truncate", path, err)) : Effect.succeed(undefined)),
    )
  })

export const rename = (from: string, to: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.rename(from, to, (err) =>
      resume(err ? Effect.fail(fsError("rename", to, err)) : Effect.succeed(undefined)),
    )
  })

export const mkdirp = (dir: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.mkdir(dir, { recursive: true, mode: 0o700 }, (err) =>
      resume(err ? Effect.fail(fsError("mkdir", dir, err)) : Effect.succeed(undefined)),
    )
  })

export const removeIfExists = (path: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.rm(path, { force: true }, (err) =>
      resume(err ? Effect.fail(fsError("remove", path, err)) : Effect.succeed(undefined)),
    )
  })

/** Copies `[from, to)` of `srcFd` to the end of `dstFd` in 64 KiB steps (bounded memory). */
export const copyRange = (
  srcFd: number,
  srcPath: string,
  from: number,
  to: number,
  dstFd: number,
  dstPath: string,
): Effect.Effect<void, LogStoreError> =>
  Effect.gen(function* () {
    const buf = Buffer.allocUnsafe(64 * 1024)
    let pos = from
    while (pos < to) {
      const n = yield* readAt(srcFd, buf, 0, Math.min(buf.length, to - pos), pos, srcPath)
      if (n === 0) break
      yield* writeAllSync(dstFd, buf.subarray(0, n), dstPath)
      pos += n
    }
  })

/** Truncates the file at `path` to 0 bytes; a missing file is left missing. */
export const truncateIfExists = (path: string): Effect.Effect<void, LogStoreError> =>
  Effect.async((resume) => {
    fs.truncate(path, 0, (err) =>
      resume(
        err && !isErrno(err, "ENOENT")
          ? Effect.fail(fsError("truncate", path, err))
          : Effect.succeed(undefined),
      ),
    )
  })

/**
 * A synchronous pread of up to `length` bytes at `position`, into a buffer of their own
 * (undefined at the end of the file). The follower reads bytes the daemon has just written,
 * which are in the page cache: a blocking read costs microseconds, a thread-pool round trip
 * much more. The read goes through one scratch buffer shared by every caller, so idle
 * daemons hold no 64 KiB buffer each and only the bytes actually read are allocated.
 */
export const readChunkSync = (
  fd: number,
  length: number,
  position: number,
  path: string,
): Effect.Effect<Buffer | undefined, LogStoreError> => attempt(() => readChunk(fd, length, position, path))

let scratch = Buffer.allocUnsafe(0)

/** `readChunkSync` for synchronous code: throws a LogStoreError. */
export const readChunk = (fd: number, length: number, position: number, path: string): Buffer | undefined => {
  try {
    if (scratch.length < length) scratch = Buffer.allocUnsafe(length)
    const n = fs.readSync(fd, scratch, 0, length, position)
    return n === 0 ? undefined : Buffer.from(scratch.subarray(0, n))
  } catch (cause) {
    throw fsError("read", path, cause)
  }
}

export const fstatSizeSync = (fd: number, path: string): Effect.Effect<number, LogStoreError> =>
  Effect.try({ try: () => fs.fstatSync(fd).size, catch: (cause) => fsError("stat", path, cause) })

// Plain synchronous helpers for code that runs many small reads in one go (index lookups,
// tail pulls): they throw a LogStoreError and are wrapped by `attempt` at the Effect edge.

/** Runs synchronous file code; a thrown LogStoreError (or anything else) becomes the failure. */
export const attempt = <A>(f: () => A): Effect.Effect<A, LogStoreError> =>
  Effect.try({ try: f, catch: asLogStoreError })

/** What synchronous file code threw, as a LogStoreError. */
export const asLogStoreError = (cause: unknown): LogStoreError =>
  cause instanceof LogStoreError ? cause : new LogStoreError({ message: String(cause), cause })

/** Writes all of `data` at the fd's position (O_APPEND: at the end). */
export const writeAllSyncRaw = (fd: number, data: Uint8Array | string, path: string): void => {
  try {
    const bytes = typeof data === "string" ? Buffer.from(data) : data
    let done = 0
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done)
  } catch (cause) {
    throw fsError("write", path, cause)
  }
}

/**
 * Creates `path` (empty, mode 0600) when it is missing, on libuv's threads: creating a file costs
 * ~0.3 ms on some disks, a fifth of the supervisor's thread in a start of 50 daemons, and run
 * there it overlaps the other daemons' steps. Whoever opens the file next finds it; a failure
 * is that open's to report.
 */
export const createAside = (path: string): Effect.Effect<void> =>
  Effect.suspend(() =>
    fs.existsSync(path)
      ? Effect.void
      : Effect.promise(() =>
          fsAsync.open(path, fs.constants.O_RDONLY | fs.constants.O_CREAT, 0o600).then(
            (fd) => fsAsync.close(fd),
            () => undefined,
          ),
        ),
  )

export const openSync = (path: string, flags: string | number, mode = 0o600): number => {
  try {
    return fs.openSync(path, flags, mode)
  } catch (cause) {
    throw fsError("open", path, cause)
  }
}

export const ftruncateSync = (fd: number, length: number, path: string): void => {
  try {
    fs.ftruncateSync(fd, length)
  } catch (cause) {
    throw fsError("truncate", path, cause)
  }
}

export const fstatSync = (fd: number, path: string): fs.Stats => {
  try {
    return fs.fstatSync(fd)
  } catch (cause) {
    throw fsError("stat", path, cause)
  }
}

export const openSyncIfExists = (path: string, flags: string | number = "r"): number | undefined => {
  try {
    return fs.openSync(path, flags)
  } catch (cause) {
    if (isErrno(cause, "ENOENT")) return undefined
    throw fsError("open", path, cause)
  }
}

export const closeSync = (fd: number): void => {
  try {
    fs.closeSync(fd)
  } catch {
    // already closed: nothing to release
  }
}

export const sizeSync = (fd: number, path: string): number => {
  try {
    return fs.fstatSync(fd).size
  } catch (cause) {
    throw fsError("stat", path, cause)
  }
}

/** Reads `[position, position + length)`; shorter when the file ends first. */
export const readRangeSync = (fd: number, position: number, length: number, path: string): Buffer => {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  try {
    while (got < length) {
      const n = fs.readSync(fd, buf, got, length - got, position + got)
      if (n === 0) break
      got += n
    }
  } catch (cause) {
    throw fsError("read", path, cause)
  }
  return got === length ? buf : buf.subarray(0, got)
}
