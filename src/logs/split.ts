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

const NL = 10

/** Length of a piece starting at `start` that is at most `maxLine` bytes and ends on a UTF-8 boundary. */
const cutLength = (buf: Uint8Array, start: number, maxLine: number): number => {
  let c = maxLine
  // buf[start + c] is the first byte of the next piece: never start it with a continuation byte.
  while (c > maxLine - 3 && c > 1 && ((buf[start + c] ?? 0) & 0xc0) === 0x80) c--
  return ((buf[start + c] ?? 0) & 0xc0) === 0x80 ? maxLine : c
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
): number => {
  let s = from
  while (s < to) {
    const found = buf.indexOf(NL, s)
    const nl = found === -1 || found >= to ? -1 : found
    const stop = nl === -1 ? to : nl
    while (stop - s > maxLine) {
      const c = cutLength(buf, s, maxLine)
      emit(s, s + c)
      s += c
    }
    if (nl === -1) {
      if (final && s < to) {
        emit(s, to)
        s = to
      }
      return s
    }
    emit(s, nl)
    s = nl + 1
  }
  return s
}

/** Number of entries `splitPieces` finds in `buf[from, to)`, and where the rest starts. */
export const countPieces = (
  buf: Uint8Array,
  from: number,
  to: number,
  maxLine: number,
  final: boolean,
): { readonly count: number; readonly rest: number } => {
  let count = 0
  const rest = splitPieces(buf, from, to, maxLine, final, () => {
    count++
  })
  return { count, rest }
}
