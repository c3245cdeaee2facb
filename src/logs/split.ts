/**
 * Splitting raw log bytes into entries. The follower only counts pieces; readers
 * split the same byte range again to get the text. Both use `splitPieces`, so the
 * ids a reader assigns are the ids the follower indexed.
 *
 * Rules, applied from the start of an entry:
 * - a `\n` ends an entry (the newline is not part of it);
 * - while more than `maxLine` bytes of one line remain, a piece of `maxLine` bytes is
 *   cut off, backed off to a UTF-8 character boundary (by at most 3 bytes);
 * - unterminated trailing bytes are either kept for later (`final: false`) or become
 *   the last entry (`final: true`: a flushed partial line, or a re-read record).
 */

/** Length of a piece starting at `start` that is at most `maxLine` bytes and ends on a UTF-8 boundary. */
const cutLength = (buf: Uint8Array, start: number, maxLine: number): number => {
  let c = maxLine
  // buf[start + c] is the first byte of the next piece: never start it with a continuation byte.
  while (c > maxLine - 3 && c > 1 && ((buf[start + c] ?? 0) & 0xc0) === 0x80) c--
  return ((buf[start + c] ?? 0) & 0xc0) === 0x80 ? maxLine : c
}

/**
 * Finds the entries in `buf[from, to)`: calls `emit(start, end)` for each (`end` excludes the
 * newline) when given, and returns their number and where the unconsumed bytes start (`to`
 * when everything was consumed).
 *
 * The newlines are found with `String.prototype.indexOf` on a latin1 copy of the range (one
 * character per byte, so positions are byte offsets). `Buffer#indexOf` would do the same scan
 * but pays a few hundred nanoseconds of argument checks per call, and a byte loop in JavaScript
 * is slow before V8 optimises it: for a flood of short lines (a million lines of 7 bytes) both
 * were most of the indexing time.
 */
const scan = (
  buf: Uint8Array,
  from: number,
  to: number,
  maxLine: number,
  final: boolean,
  emit: ((start: number, end: number) => void) | undefined,
): { readonly count: number; readonly rest: number } => {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString("latin1", from, to)
  let count = 0
  let s = from
  for (;;) {
    const found = text.indexOf("\n", s - from)
    const stop = found === -1 ? to : from + found
    while (stop - s > maxLine) {
      const c = cutLength(buf, s, maxLine)
      emit?.(s, s + c)
      count++
      s += c
    }
    if (found === -1) break
    emit?.(s, stop)
    count++
    s = stop + 1
  }
  // no newline in [s, to): what is left is kept for later, unless it is final
  if (final && s < to) {
    emit?.(s, to)
    count++
    s = to
  }
  return { count, rest: s }
}

/**
 * Calls `emit(start, end)` for each entry in `buf[from, to)` (`end` excludes the newline)
 * and returns where the unconsumed bytes start (`to` when everything was consumed).
 */
export const splitPieces = (
  buf: Uint8Array,
  from: number,
  to: number,
  maxLine: number,
  final: boolean,
  emit: (start: number, end: number) => void,
): number => scan(buf, from, to, maxLine, final, emit).rest

/** Number of entries `splitPieces` finds in `buf[from, to)`, and where the rest starts. */
export const countPieces = (
  buf: Uint8Array,
  from: number,
  to: number,
  maxLine: number,
  final: boolean,
): { readonly count: number; readonly rest: number } => scan(buf, from, to, maxLine, final, undefined)
