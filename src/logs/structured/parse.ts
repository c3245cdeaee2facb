// Parsing one output line by the daemon's log_format, once, when the follower stores it. What it
// finds (a level, the fields) is kept beside the raw text in `<safe_path>.fields` (fieldsFile.ts).
import type { LogFormat, LogLevel } from "../../domain/LogFormat.js"
import { stripAnsi } from "../ansi.js"
import { isSupervisorLine } from "../supervisorLine.js"

/** What a line says besides its text; undefined when the format found nothing in it. */
export interface ParsedLine {
  readonly level: LogLevel | undefined
  /** The fields as JSON text of one object (for a JSON line, the line itself). */
  readonly fieldsJson: string
}

/** Keys that name a line's severity, in the order they are looked for. */
const LEVEL_KEYS = ["level", "lvl", "severity", "loglevel", "log_level", "log.level", "levelname"]

const LEVEL_WORDS: Readonly<Record<string, LogLevel>> = {
  trace: "trace",
  trc: "trace",
  verbose: "trace",
  debug: "debug",
  dbg: "debug",
  info: "info",
  inf: "info",
  information: "info",
  notice: "info",
  warn: "warn",
  wrn: "warn",
  warning: "warn",
  error: "error",
  err: "error",
  fatal: "fatal",
  critical: "fatal",
  crit: "fatal",
  panic: "fatal",
  alert: "fatal",
  emerg: "fatal",
  emergency: "fatal",
}

/** A level value as written (a word in any case, or pino/bunyan's 10..60) as one of ours. */
export const normaliseLevel = (value: unknown): LogLevel | undefined => {
  if (typeof value === "number")
    return value <= 10
      ? "trace"
      : value <= 20
        ? "debug"
        : value <= 30
          ? "info"
          : value <= 40
            ? "warn"
            : value <= 50
              ? "error"
              : "fatal"
  if (typeof value !== "string") return undefined
  return LEVEL_WORDS[value.trim().toLowerCase()]
}

export const levelOf = (fields: Readonly<Record<string, unknown>>): LogLevel | undefined => {
  for (const key of LEVEL_KEYS) {
    if (!(key in fields)) continue
    const level = normaliseLevel(fields[key])
    if (level !== undefined) return level
  }
  return undefined
}

/** A JSON object line; undefined for anything else (an array, a number, broken JSON). */
const parseJson = (text: string): ParsedLine | undefined => {
  let start = 0
  while (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9) start++
  if (text.charCodeAt(start) !== 123 /* { */) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  // the line is the JSON text of its fields: stored as it is, not stringified again
  return { level: levelOf(value as Record<string, unknown>), fieldsJson: text.slice(start).trimEnd() }
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" }

/** logfmt: `key=value`, `key="quoted \"value\""`, a bare `key` (true). Pairs and bare keys counted. */
export const parseLogfmt = (
  text: string,
): { readonly fields: Record<string, unknown>; readonly pairs: number; readonly bare: number } => {
  const fields: Record<string, unknown> = {}
  let pairs = 0
  let bare = 0
  let i = 0
  const n = text.length
  while (i < n) {
    while (i < n && (text[i] === " " || text[i] === "\t")) i++
    if (i >= n) break
    let k = i
    while (k < n && text[k] !== "=" && text[k] !== " " && text[k] !== "\t") k++
    const key = text.slice(i, k)
    if (k >= n || text[k] !== "=") {
      if (key !== "") {
        fields[key] = true
        bare++
      }
      i = k
      continue
    }
    let v = k + 1
    let value = ""
    if (text[v] === '"') {
      v++
      while (v < n && text[v] !== '"') {
        if (text[v] === "\\" && v + 1 < n) {
          value += ESCAPES[text[v + 1]!] ?? text[v + 1]
          v += 2
        } else value += text[v++]
      }
      v++ // the closing quote (or the end of an unterminated value)
    } else {
      const from = v
      while (v < n && text[v] !== " " && text[v] !== "\t") v++
      value = text.slice(from, v)
    }
    if (key === "")
      bare++ // `=value`: not a pair
    else {
      fields[key] = value
      pairs++
    }
    i = v
  }
  return { fields, pairs, bare }
}

const logfmtLine = (text: string, strict: boolean): ParsedLine | undefined => {
  if (!text.includes("=")) return undefined
  const { fields, pairs, bare } = parseLogfmt(text)
  // auto: only a line made of pairs alone is logfmt (prose with an `=` in it is not)
  if (pairs === 0 || (strict && bare > 0)) return undefined
  return { level: levelOf(fields), fieldsJson: JSON.stringify(fields) }
}

/** Reads one line (without its newline) as `format` says; undefined: nothing structured in it. */
export const parseLine = (format: LogFormat, line: string): ParsedLine | undefined => {
  // the supervisor's own lines are not the daemon's structured output
  if (format === "text" || isSupervisorLine(line)) return undefined
  const text = stripAnsi(line)
  switch (format) {
    case "json":
      return parseJson(text)
    case "logfmt":
      return logfmtLine(text, false)
    case "auto":
      return parseJson(text) ?? logfmtLine(text, true)
  }
}
