import { isUtf8 } from "node:buffer"
import { formatLogTimestamp } from "../domain/LogEntry.js"
import { stripAnsi } from "./ansi.js"
import type { IndexRecord } from "./indexFile.js"
import { splitPieces } from "./split.js"

/**
 * Stored entries as text, one per line, as `supervisor logs` prints them without colours: the
 * message `query` would give (a trailing CR dropped, invalid UTF-8 as U+FFFD, long lines split,
 * ANSI escapes stripped with `raw`), after its timestamp and a space with `timestamps`, then "\n".
 *
 * Most output is already that text: whole lines of valid UTF-8 without CRLF. Such records are
 * passed through as slices of the buffer they were read into, without a string or an object per
 * line; the rest is rendered entry by entry from the same pieces the follower counted.
 */
export interface TextOptions {
  /** Strip ANSI escape sequences, as `LogQuery.raw` does. */
  readonly raw?: boolean
  /** Put `YYYY-MM-DD HH:MM:SS ` (local time) before each line. */
  readonly timestamps?: boolean
}

/** Collects the output in order; contiguous slices of the read buffer become one. */
class Parts {
  readonly out: Array<Uint8Array> = []
  private from = 0
  private to = 0
  constructor(private readonly buf: Buffer) {}

  slice(from: number, to: number): void {
    if (from === this.to && this.to > this.from) this.to = to
    else {
      this.flush()
      this.from = from
      this.to = to
    }
  }

  bytes(b: Uint8Array): void {
    this.flush()
    if (b.length > 0) this.out.push(b)
  }

  flush(): void {
    if (this.to > this.from) this.out.push(this.buf.subarray(this.from, this.to))
    this.from = this.to = 0
  }
}

/** Whether a range holds nothing the messages would change: valid UTF-8, no CRLF, no escape to strip. */
const plainText = (buf: Buffer, text: string, from: number, to: number, raw: boolean): boolean => {
  const range = from === 0 && to === text.length ? text : text.slice(from, to)
  return (
    isUtf8(buf.subarray(from, to)) &&
    !range.includes("\r\n") &&
    !(raw && (range.includes("\x1b") || range.includes("\xc2\x9b")))
  )
}

/**
 * Where the entries of `rec` after the first `skip` start, if its bytes in `text` (offset
 * `base`) are `rec.n` newline-terminated lines; else undefined. A line the follower split into
 * pieces (longer than maxLine) makes more entries than newlines, so it never passes.
 */
const wholeLinesStart = (text: string, base: number, rec: IndexRecord, skip: number): number | undefined => {
  const from = rec.off - base
  const to = rec.end - base
  if (to <= from || text.charCodeAt(to - 1) !== 10) return undefined
  let count = 0
  let start = from
  let skipTo = from
  while (start < to) {
    start = text.indexOf("\n", start) + 1
    count++
    if (count === skip) skipTo = start
  }
  return count === rec.n ? skipTo : undefined
}

/**
 * Renders the entries of `records` with an id above `after` and at most `upTo` into parts.
 * `buf` holds the raw bytes from offset `base` on, covering every record (contiguous ones: one
 * read). Returns the parts and the last id covered.
 */
export const renderRecords = (
  buf: Buffer,
  base: number,
  records: ReadonlyArray<IndexRecord>,
  after: number,
  upTo: number,
  maxLine: number,
  options: TextOptions,
): { readonly parts: ReadonlyArray<Uint8Array>; readonly last: number } => {
  const raw = options.raw === true
  const parts = new Parts(buf)
  const text = buf.toString("latin1")
  // one check for the whole read; only a read with something to change is checked per record
  const plainAll = plainText(buf, text, 0, buf.length, raw)
  let last = after
  for (const rec of records) {
    const skip = Math.max(0, after - rec.first + 1)
    const end = rec.first + rec.n - 1
    if (rec.end - base > buf.length || rec.first > upTo) break
    if (skip >= rec.n) continue
    const prefix = options.timestamps ? `${formatLogTimestamp(rec.ts)} ` : ""
    const plain = plainAll || plainText(buf, text, rec.off - base, rec.end - base, raw)
    const start = plain && end <= upTo ? wholeLinesStart(text, base, rec, skip) : undefined
    if (start !== undefined && prefix === "") parts.slice(start, rec.end - base)
    else if (start !== undefined) {
      // latin1 maps each byte to one character and back: valid UTF-8 comes through unchanged
      const lines = text
        .slice(start, rec.end - base - 1)
        .split("\n")
        .join(`\n${prefix}`)
      parts.bytes(Buffer.from(`${prefix}${lines}\n`, "latin1"))
    } else parts.bytes(renderEntries(buf, rec, base, skip, upTo, maxLine, raw, prefix))
    last = Math.min(end, upTo)
  }
  parts.flush()
  return { parts: parts.out, last }
}

/** The entries of one record one by one, as the reader splits them for `query`. */
const renderEntries = (
  buf: Buffer,
  rec: IndexRecord,
  base: number,
  skip: number,
  upTo: number,
  maxLine: number,
  raw: boolean,
  prefix: string,
): Uint8Array => {
  let out = ""
  let i = 0
  splitPieces(buf, rec.off - base, rec.end - base, maxLine, true, (s, e) => {
    const id = rec.first + i++
    if (i <= skip || i > rec.n || id > upTo) return
    if (e > s && buf[e - 1] === 13) e-- // CRLF output: drop the CR
    const message = buf.toString("utf8", s, e)
    out += `${prefix}${raw ? stripAnsi(message) : message}\n`
  })
  return Buffer.from(out)
}
