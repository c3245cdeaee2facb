// Entries with their parsed part, and the filters on it: `logs --level`, `--field k=v`, `--jq`.

import type { LogEntry } from "../../domain/LogEntry.js"
import { type LogLevel, levelRank } from "../../domain/LogFormat.js"
import type { EntryFields } from "./fieldsFile.js"

/** The filters on an entry's parsed part; they all apply (AND). */
export interface StructuredQuery {
  /** Only entries of this level or a more severe one (an entry without a level is left out). */
  readonly level?: LogLevel
  /** Only entries whose field `key` (or dotted path) reads `value`. */
  readonly fields?: ReadonlyArray<readonly [string, string]>
  /** Only entries for which this `--jq` predicate holds (src/logs/jq). */
  readonly jq?: (input: unknown) => boolean
}

const parseFields = (json: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(json)
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** An entry, with `level` and `fields` when the follower parsed them. */
export const makeEntry = (
  id: number,
  timestamp: string,
  daemonId: string,
  message: string,
  parsed: EntryFields | undefined,
): LogEntry => {
  const json = parsed?.inMessage === true ? message : parsed?.fieldsJson
  if (parsed === undefined || json === undefined) return { id, timestamp, daemon_id: daemonId, message }
  const fields = parseFields(json)
  return {
    id,
    timestamp,
    daemon_id: daemonId,
    message,
    ...(parsed.level !== undefined && { level: parsed.level }),
    ...(fields !== undefined && { fields }),
  }
}

/** The value at `key`: the key itself, else a dotted path into nested objects. */
export const fieldValue = (fields: Readonly<Record<string, unknown>> | undefined, key: string): unknown => {
  if (fields === undefined) return undefined
  if (Object.hasOwn(fields, key)) return fields[key]
  let v: unknown = fields
  for (const part of key.split(".")) {
    if (typeof v !== "object" || v === null || !Object.hasOwn(v, part)) return undefined
    v = (v as Record<string, unknown>)[part]
  }
  return v
}

/** How `--field k=v` reads a value: strings as they are, anything else as JSON (`503`, `true`). */
const asText = (v: unknown): string | undefined =>
  v === undefined ? undefined : typeof v === "string" ? v : JSON.stringify(v)

/** `k=v` of `--field`; left: why it is not one. */
export const parseFieldFilter = (arg: string): readonly [string, string] | string => {
  const eq = arg.indexOf("=")
  if (eq <= 0) return `--field ${JSON.stringify(arg)}: expected KEY=VALUE, e.g. --field status=500`
  return [arg.slice(0, eq), arg.slice(eq + 1)] as const
}

/**
 * What `--jq` sees of an entry: the entry as `logs --json` prints it, plus `msg` and `logger`
 * from its fields when they have them (the names pitchfork's expressions use).
 */
export const jqInput = (e: LogEntry): Record<string, unknown> => {
  const f = e.fields
  const msg = f?.msg ?? f?.message
  const logger = f?.logger ?? f?.name
  return { ...e, ...(msg !== undefined && { msg }), ...(logger !== undefined && { logger }) }
}

/** Whether a query has a filter on the parsed part. */
export const isStructured = (q: StructuredQuery): boolean =>
  q.level !== undefined || (q.fields !== undefined && q.fields.length > 0) || q.jq !== undefined

/** The level test alone (cheap: no fields parsed), or undefined when there is none. */
export const levelTest = (q: StructuredQuery): ((level: string | undefined) => boolean) | undefined => {
  if (q.level === undefined) return undefined
  const min = levelRank(q.level)
  return (level) => levelRank(level) >= min
}

/** The whole test of an entry (level, fields, jq), or undefined when the query has none. */
export const entryTest = (q: StructuredQuery): ((e: LogEntry) => boolean) | undefined => {
  if (!isStructured(q)) return undefined
  const level = levelTest(q)
  const fields = q.fields ?? []
  const jq = q.jq
  return (e) =>
    (level === undefined || level(e.level)) &&
    fields.every(([k, v]) => asText(fieldValue(e.fields, k)) === v) &&
    (jq === undefined || jq(jqInput(e)))
}
