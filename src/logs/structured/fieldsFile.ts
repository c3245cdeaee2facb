// `<safe_path>.fields`: what the follower parsed out of a structured daemon's lines (log_format
// json, logfmt or auto), one line per entry, in the order of the entries: `<level>\t<fields JSON>`,
// `<level>\t=` when the fields' JSON is the entry's message itself (a plain JSON line: not stored
// twice), or an empty line for an entry it found nothing in. An index record of such entries says where
// their lines are (`fo`, `fe`); a text daemon has no such file and its records say nothing more.
import type { LogFormat, LogLevel } from "../../domain/LogFormat.js"
import * as fsio from "../fsio.js"
import { splitPieces } from "../split.js"
import { levelOf, parseLine } from "./parse.js"

/**
 * `fieldsText` of a chunk of JSON lines in one `JSON.parse` of them all (`[l1,l2,...]`), which
 * costs about half as much as a parse per line; undefined when the chunk is not plainly that
 * (a line that is not JSON, a CR, a colour code, a line long enough to be split): then each line
 * is parsed on its own. A line that is a JSON value but no object gets an empty fields line.
 */
const bulkJson = (b: Buffer, from: number, to: number, maxLine: number) => {
  const s = b.toString("utf8", from, to)
  if (s.includes("\r") || s.includes("\x1b") || s.includes("\x9b")) return undefined
  const lines = s.split("\n")
  if (lines[lines.length - 1] === "") lines.pop() // the newline of the last line
  for (const line of lines) if (line.length * 3 > maxLine) return undefined
  let values: unknown
  try {
    values = JSON.parse(`[${lines.join(",")}]`)
  } catch {
    return undefined
  }
  // one value per line: a line such as `1,2` would make two
  if (!Array.isArray(values) || values.length !== lines.length) return undefined
  let text = ""
  for (let i = 0; i < lines.length; i++) {
    const v: unknown = values[i]
    const line = lines[i]!
    const json = line.trim()
    text +=
      typeof v === "object" && v !== null && !Array.isArray(v)
        ? `${levelOf(v as Record<string, unknown>) ?? ""}\t${json === line ? "=" : json}\n`
        : "\n"
  }
  return { text, count: lines.length }
}

/**
 * The fields lines of the entries in `buf[from, to)`, split as the follower counts them (whole
 * pieces, the last one final), and their number.
 */
export const fieldsText = (
  format: LogFormat,
  buf: Uint8Array,
  from: number,
  to: number,
  maxLine: number,
): { readonly text: string; readonly count: number } => {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
  if (format === "json" || format === "auto") {
    const bulk = bulkJson(b, from, to, maxLine)
    if (bulk !== undefined) return bulk
  }
  let text = ""
  let count = 0
  splitPieces(b, from, to, maxLine, true, (s, e) => {
    if (e > s && b[e - 1] === 13) e-- // CRLF output: as the message shows it
    const message = b.toString("utf8", s, e)
    const parsed = parseLine(format, message)
    text +=
      parsed === undefined
        ? "\n"
        : `${parsed.level ?? ""}\t${parsed.fieldsJson === message ? "=" : parsed.fieldsJson}\n`
    count++
  })
  return { text, count }
}

/** One entry's parsed part, as a reader hands it on. */
export interface EntryFields {
  readonly level: LogLevel | undefined
  /** Undefined for an entry the format found nothing in, or when it is the message. */
  readonly fieldsJson: string | undefined
  /** The fields' JSON is the entry's message itself. */
  readonly inMessage?: boolean
}

const NOTHING: EntryFields = { level: undefined, fieldsJson: undefined }

/** Reads a fields line back (without its newline). */
export const decodeFieldsLine = (line: string): EntryFields => {
  const tab = line.indexOf("\t")
  if (tab === -1) return NOTHING
  const level = tab === 0 ? undefined : (line.slice(0, tab) as LogLevel)
  const json = line.slice(tab + 1)
  return json === "=" ? { level, fieldsJson: undefined, inMessage: true } : { level, fieldsJson: json }
}

/** The lines of `buf`, each without its newline (at most `n`; missing ones are empty). */
export const fieldsLines = (buf: Buffer, n: number): Array<EntryFields> => {
  const out: Array<EntryFields> = []
  let s = 0
  while (out.length < n) {
    const nl = buf.indexOf(10, s)
    if (nl === -1) break
    out.push(s === nl ? NOTHING : decodeFieldsLine(buf.toString("utf8", s, nl)))
    s = nl + 1
  }
  while (out.length < n) out.push(NOTHING)
  return out
}

/** The fields file of a reader, opened on first use (most daemons have none); close it after. */
export interface FieldsSource {
  /** The bytes `[from, to)`, or undefined when there is no such file. */
  readonly read: (from: number, to: number) => Buffer | undefined
  readonly close: () => void
}

export const fieldsSource = (path: string): FieldsSource => {
  let fd: number | undefined | null = null // null: not opened yet
  return {
    read: (from, to) => {
      if (fd === null) fd = fsio.openSyncIfExists(path)
      return fd === undefined ? undefined : fsio.readRangeSync(fd, from, to - from, path)
    },
    close: () => {
      if (typeof fd === "number") fsio.closeSync(fd)
      fd = undefined
    },
  }
}
