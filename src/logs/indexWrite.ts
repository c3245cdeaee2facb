// Writing and repairing a daemon's index file (indexFile.ts describes its format).
import { Effect } from "effect"
import type { LogStoreError } from "./errors.js"
import * as fsio from "./fsio.js"
import {
  emptyHeader,
  encodeHeader,
  type IndexHeader,
  type IndexView,
  lastNewlineBefore,
  NL,
  PROBE,
  parseLine,
} from "./indexFile.js"

/**
 * Writes a new index atomically: header, `first` (an encoded record, if any), then the bytes
 * `[from, to)` of `copyFrom` (the records kept), to a temp file that is fsynced and renamed
 * over `path`.
 */
export const writeIndexAtomic = (
  path: string,
  header: IndexHeader,
  copyFrom?: { readonly view: IndexView; readonly from: number; readonly to: number },
  first = "",
): Effect.Effect<void, LogStoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const tmp = `${path}.tmp`
      const fd = yield* fsio.scopedOpen(tmp, "w")
      yield* fsio.writeAllSync(fd, encodeHeader(header) + first, tmp)
      if (copyFrom?.view.fd !== undefined)
        yield* fsio.copyRange(copyFrom.view.fd, path, copyFrom.from, copyFrom.to, fd, tmp)
      yield* fsio.fsync(fd, tmp)
      yield* fsio.rename(tmp, path)
    }),
  )

/**
 * Makes the index safe to append to after a crash: cuts a torn last line and any damaged
 * lines at the end, and writes a header into an empty file.
 */
export const repairIndex = (path: string): Effect.Effect<void, LogStoreError> =>
  fsio.attempt(() => repairIndexSync(path))

/** `repairIndex` for synchronous code: throws a LogStoreError. */
export const repairIndexSync = (path: string): void => {
  const fd = fsio.openSync(path, "a+")
  try {
    repairOpenIndex(fd, path)
  } finally {
    fsio.closeSync(fd)
  }
}

/**
 * `repairIndex` of the index open (for appending) as `fd`, which gets `header` (by default an
 * empty generation 0) if it has none; its size afterwards. Throws a LogStoreError.
 */
export const repairOpenIndex = (fd: number, path: string, header = encodeHeader(emptyHeader)): number => {
  const size = fsio.sizeSync(fd, path)
  const end = validEnd(fd, path, size)
  if (end !== size) fsio.ftruncateSync(fd, end, path)
  if (end > 0) return end
  fsio.writeAllSyncRaw(fd, header, path)
  return Buffer.byteLength(header)
}

/** The end of the last line that parses, dropping a torn or damaged tail line by line. */
const validEnd = (fd: number, path: string, size: number): number => {
  let end = size
  while (end > 0) {
    const from = Math.max(0, end - PROBE)
    const buf = fsio.readRangeSync(fd, from, end - from, path)
    if (buf[buf.length - 1] !== NL) {
      end = lastNewlineBefore(fd, path, end)
      continue
    }
    const prevNl = buf.length < 2 ? -1 : buf.lastIndexOf(NL, buf.length - 2) // negative: from the end
    if (prevNl === -1 && from > 0) {
      end = lastNewlineBefore(fd, path, end - 1) // a line longer than the probe: cannot be ours
      continue
    }
    if (parseLine(buf.toString("utf8", prevNl + 1, buf.length - 1)) !== undefined) return end
    end = from + prevNl + 1
  }
  return 0
}
