import { Effect } from "effect"
import * as fsio from "./fsio.js"

/**
 * The index file `<safe_path>.idx`: ndjson, a header line, then one record per read chunk.
 *
 * - Header `{gen, next, off, ts}`: the log generation (bumped by every clear), the first id
 *   of this file, the first raw byte this file refers to (0 after a clear, the cut after a
 *   retention), and a floor for timestamps (keeps them monotonic across rewrites).
 * - Record `{first, n, off, end, ts, late}`: entries `first … first+n-1` are the bytes
 *   `[off, end)` of the raw file, read at `ts` (epoch ms), or written while no supervisor
 *   followed the file (`late`, `ts` is then an upper bound). A structured daemon's records also
 *   have `fo` and `fe`: their entries' parsed fields are the lines `[fo, fe)` of the fields file.
 *
 * Records are appended in id order, their `off`/`end` tile the raw file, and `ts` never
 * decreases, so a reader can binary-search the file by byte position on any of them.
 */

export interface IndexHeader {
  readonly gen: number
  readonly next: number
  readonly off: number
  readonly ts: number
}

export interface IndexRecord {
  readonly first: number
  readonly n: number
  readonly off: number
  readonly end: number
  readonly ts: number
  readonly late: boolean
  /** Where the entries' lines of the fields file start and end (structured daemons only). */
  readonly fo?: number
  readonly fe?: number
}

/** A record with where its line is in the index file. */
export interface Located {
  readonly rec: IndexRecord
  /** Byte position of the line in the index file. */
  readonly start: number
  /** Byte position after its newline. */
  readonly next: number
}

export const emptyHeader: IndexHeader = { gen: 0, next: 1, off: 0, ts: 0 }

export const lastId = (r: IndexRecord): number => r.first + r.n - 1

export const encodeHeader = (h: IndexHeader): string =>
  `${JSON.stringify({ gen: h.gen, next: h.next, off: h.off, ts: h.ts })}\n`

export const encodeRecord = (r: IndexRecord): string =>
  r.fo === undefined || r.fe === undefined
    ? `${JSON.stringify({ first: r.first, n: r.n, off: r.off, end: r.end, ts: r.ts, late: r.late })}\n`
    : `${JSON.stringify({ first: r.first, n: r.n, off: r.off, end: r.end, ts: r.ts, late: r.late, fo: r.fo, fe: r.fe })}\n`

const isNat = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0

type Parsed =
  | { readonly _tag: "header"; readonly header: IndexHeader }
  | { readonly _tag: "record"; readonly rec: IndexRecord }

/** Parses one line; undefined when it is neither a valid header nor a valid record. */
export const parseLine = (line: string): Parsed | undefined => {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof v !== "object" || v === null) return undefined
  const o = v as Record<string, unknown>
  if ("gen" in o) {
    return isNat(o.gen) && isNat(o.next) && isNat(o.off) && isNat(o.ts)
      ? { _tag: "header", header: { gen: o.gen, next: o.next, off: o.off, ts: o.ts } }
      : undefined
  }
  if (
    isNat(o.first) &&
    isNat(o.n) &&
    o.n > 0 &&
    isNat(o.off) &&
    isNat(o.end) &&
    o.end >= o.off &&
    isNat(o.ts)
  ) {
    const rec = { first: o.first, n: o.n, off: o.off, end: o.end, ts: o.ts, late: o.late === true }
    return {
      _tag: "record",
      rec: isNat(o.fo) && isNat(o.fe) && o.fe >= o.fo ? { ...rec, fo: o.fo, fe: o.fe } : rec,
    }
  }
  return undefined
}

const BLOCK = 64 * 1024
export const PROBE = 512
export const NL = 10

// The functions below are synchronous: an index lookup is a handful of small reads of a
// file in the page cache, and a tail of a chatty daemon does one per line. They throw a
// LogStoreError; `scopedView` and `fsio.attempt` bring them into Effect.

/**
 * A read-only view of one index file as it was when opened: `limit` is the end of its
 * last complete line, so records appended later and a torn last line are not seen.
 * The fd keeps the inode: a concurrent rewrite (rename over the path) does not disturb it.
 */
export interface IndexView {
  readonly path: string
  readonly fd: number | undefined
  readonly header: IndexHeader
  readonly dataStart: number
  readonly limit: number
}

/** Opens a view; a missing or empty index is an empty generation 0. Close it with `closeView`. */
export const openView = (path: string): IndexView => {
  const fd = fsio.openSyncIfExists(path)
  if (fd === undefined) return emptyView(path)
  try {
    return viewOf(path, fd, fsio.sizeSync(fd, path))
  } catch (e) {
    fsio.closeSync(fd)
    throw e
  }
}

/** The view of a missing index: an empty generation 0. */
export const emptyView = (path: string): IndexView => ({
  path,
  fd: undefined,
  header: emptyHeader,
  dataStart: 0,
  limit: 0,
})

/** A view of the index open as `fd`, whose size is `size` (the caller keeps the fd). */
export const viewOf = (path: string, fd: number, size: number): IndexView => {
  const tailStart = Math.max(0, size - PROBE)
  const tailBuf = fsio.readRangeSync(fd, tailStart, size - tailStart, path)
  let limit = tailStart + tailBuf.lastIndexOf(NL) + 1
  // the last line is longer than a probe: only a torn tail can be; search further back
  if (limit === tailStart && tailStart > 0) limit = lastNewlineBefore(fd, path, tailStart)
  const head = readLineAt(fd, path, 0, limit)
  const parsed = head === undefined ? undefined : parseLine(head.text)
  if (head !== undefined && parsed?._tag === "header")
    return { path, fd, header: parsed.header, dataStart: head.next, limit }
  return { path, fd, header: emptyHeader, dataStart: 0, limit }
}

export const closeView = (view: IndexView): void => {
  if (view.fd !== undefined) fsio.closeSync(view.fd)
}

/** Runs `f` on a fresh view of the index and closes it. */
export const withView = <A>(path: string, f: (view: IndexView) => A): A => {
  const view = openView(path)
  try {
    return f(view)
  } finally {
    closeView(view)
  }
}

/** A view closed when the scope closes. */
export const scopedView = (path: string) =>
  Effect.acquireRelease(
    fsio.attempt(() => openView(path)),
    (view) => Effect.sync(() => closeView(view)),
  )

/** Position after the last newline before `before` (0 when there is none). */
export const lastNewlineBefore = (fd: number, path: string, before: number): number => {
  let to = before
  while (to > 0) {
    const from = Math.max(0, to - BLOCK)
    const buf = fsio.readRangeSync(fd, from, to - from, path)
    const i = buf.lastIndexOf(NL)
    if (i !== -1) return from + i + 1
    to = from
  }
  return 0
}

/** The line starting at `start` (before `limit`), without its newline. */
const readLineAt = (
  fd: number,
  path: string,
  start: number,
  limit: number,
): { readonly text: string; readonly next: number } | undefined => {
  for (let len = PROBE; start < limit; len *= 4) {
    const buf = fsio.readRangeSync(fd, start, Math.min(len, limit - start), path)
    const i = buf.indexOf(NL)
    if (i !== -1) return { text: buf.toString("utf8", 0, i), next: start + i + 1 }
    if (start + buf.length >= limit) return undefined
  }
  return undefined
}

const nextNewline = (view: IndexView, from: number): number | undefined => {
  for (let pos = from; pos < view.limit; ) {
    const buf = fsio.readRangeSync(view.fd!, pos, Math.min(PROBE, view.limit - pos), view.path)
    const i = buf.indexOf(NL)
    if (i !== -1) return pos + i
    if (buf.length === 0) return undefined
    pos += buf.length
  }
  return undefined
}

/** The first record whose line starts at or after `pos`; undefined at the end. */
export const recordAtOrAfter = (view: IndexView, pos: number): Located | undefined => {
  if (view.fd === undefined) return undefined
  let start = Math.max(pos, view.dataStart)
  if (start > view.dataStart) {
    // find the start of the first line at or after `start`: look from start - 1 for a newline
    const nl = nextNewline(view, start - 1)
    if (nl === undefined) return undefined
    start = nl + 1
  }
  while (start < view.limit) {
    const line = readLineAt(view.fd, view.path, start, view.limit)
    if (line === undefined) return undefined
    const parsed = parseLine(line.text)
    if (parsed?._tag === "record") return { rec: parsed.rec, start, next: line.next }
    start = line.next // skip a damaged line
  }
  return undefined
}

/**
 * Byte position of the first record for which `pred` holds (`limit` when none does).
 * `pred` must be monotonic over the file (false … false true … true).
 */
export const lowerBound = (view: IndexView, pred: (r: IndexRecord) => boolean): number => {
  let lo = view.dataStart
  let hi = view.limit
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2)
    const r = recordAtOrAfter(view, mid)
    if (r === undefined || pred(r.rec)) hi = mid
    else lo = r.next // no record starts in (r.start, r.next): the answer is the one at r.next or later
  }
  return recordAtOrAfter(view, lo)?.start ?? view.limit
}

const parseBlock = (buf: Buffer, base: number, out: Array<Located>) => {
  let s = 0
  while (s < buf.length) {
    const nl = buf.indexOf(NL, s)
    if (nl === -1) break
    const parsed = parseLine(buf.toString("utf8", s, nl))
    if (parsed?._tag === "record") out.push({ rec: parsed.rec, start: base + s, next: base + nl + 1 })
    s = nl + 1
  }
  return s
}

/**
 * Records whose lines start in `[from, to)` (`from` a line start), reading about 64 KiB of
 * the index; `next` is where to continue (`to` when done).
 */
export const readForward = (
  view: IndexView,
  from: number,
  to: number,
): { readonly records: ReadonlyArray<Located>; readonly next: number } => {
  if (view.fd === undefined || from >= to) return { records: [], next: to }
  for (let len = BLOCK; ; len *= 4) {
    const buf = fsio.readRangeSync(view.fd, from, Math.min(len, to - from), view.path)
    const out: Array<Located> = []
    const used = parseBlock(buf, from, out)
    if (used > 0 || from + buf.length >= to) return { records: out, next: used > 0 ? from + used : to }
    // a line longer than the block: never for our records, but do not loop forever
  }
}

/**
 * Records whose lines lie in `[x, to)` for some line start `x >= from`, reading about `block`
 * bytes (64 KiB) backwards from `to` (`to` a line start or `limit`); `prev` is `x`, where to
 * continue.
 */
export const readBackward = (
  view: IndexView,
  from: number,
  to: number,
  block = BLOCK,
): { readonly records: ReadonlyArray<Located>; readonly prev: number } => {
  if (view.fd === undefined || to <= from) return { records: [], prev: from }
  for (let len = block; ; len *= 4) {
    const blockStart = Math.max(from, to - len)
    const out: Array<Located> = []
    if (blockStart === from) {
      parseBlock(fsio.readRangeSync(view.fd, from, to - from, view.path), from, out)
      return { records: out, prev: from }
    }
    // read one byte more so a line starting exactly at blockStart is recognised
    const buf = fsio.readRangeSync(view.fd, blockStart - 1, to - blockStart + 1, view.path)
    const nl = buf.indexOf(NL)
    if (nl !== -1 && blockStart + nl < to) {
      const start = blockStart + nl
      parseBlock(buf.subarray(nl + 1), start, out)
      return { records: out, prev: start }
    }
  }
}

/** The last record of the view, if any: parses lines from the end only until one is valid. */
export const lastRecord = (view: IndexView): Located | undefined => {
  if (view.fd === undefined) return undefined
  let to = view.limit
  while (to > view.dataStart) {
    const from = Math.max(view.dataStart, to - PROBE)
    const buf = fsio.readRangeSync(view.fd, from, to - from, view.path)
    // buf ends with a newline; walk its lines backwards
    let end = buf.length - 1
    while (end >= 0) {
      const nl = end === 0 ? -1 : buf.lastIndexOf(NL, end - 1) // a negative offset counts from the end
      if (nl === -1 && from > view.dataStart) break // the line starts before this block
      const parsed = parseLine(buf.toString("utf8", nl + 1, end))
      if (parsed?._tag === "record") return { rec: parsed.rec, start: from + nl + 1, next: from + end + 1 }
      end = nl
    }
    // not one whole line in the block: never for our records; skip it
    to =
      end === buf.length - 1 && from > view.dataStart
        ? lastNewlineBefore(view.fd, view.path, from)
        : from + end + 1
  }
  return undefined
}

/** Where the next generation of ids starts and which raw offset follows the last record. */
export const endOf = (view: IndexView, last: Located | undefined) => ({
  nextId: last ? last.rec.first + last.rec.n : view.header.next,
  end: last ? last.rec.end : view.header.off,
  ts: Math.max(view.header.ts, last?.rec.ts ?? 0),
})
