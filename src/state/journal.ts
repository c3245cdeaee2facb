import * as crypto from "node:crypto"
import type { DaemonRecord, PersistentState } from "./State.js"

// The state file's journal (docs/cli.md, the supervisor process): a write that changes only daemon records appends one
// line naming them to `<state file>.journal` instead of writing every record again (150 kB with
// 200 daemons, many times a second while daemons restart). The journal's first line names the
// base text it applies to by its hash: a journal left over from an earlier base (the supervisor
// stopped between writing a new base and starting a new journal) is never applied to the new one.

/** The journal of a state file. */
export const journalPathOf = (stateFile: string): string => `${stateFile}.journal`

/**
 * What names a base text in its journal's header: a 64-bit hash of its UTF-16 code units (two
 * 32-bit FNV-1a lanes with different primes), 16 hex digits. It tells one base from another, which
 * needs no cryptographic hash: ~0.3 ms for a 150 kB base, and Node's `crypto` module stays unloaded
 * (docs/benchmarks.md). Journals of earlier versions (header `journal: 1`) name theirs by SHA-1.
 */
export const baseHash = (baseText: string): string => {
  let a = 0x811c9dc5
  let b = 0x811c9dc5 ^ baseText.length
  for (let i = 0; i < baseText.length; i++) {
    const c = baseText.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d)
  return (a >>> 0).toString(16).padStart(8, "0") + ((b ^ (b >>> 13)) >>> 0).toString(16).padStart(8, "0")
}

/** A journal's first line: the base it applies to. */
export const journalHeader = (hash: string): string => `${JSON.stringify({ journal: 2, base: hash })}\n`

/** Whether a journal's parsed header names `baseText`: by `baseHash`, or an earlier version's SHA-1. */
const namesBase = (header: Record<string, unknown>, baseText: string): boolean =>
  header.journal === 2
    ? header.base === baseHash(baseText)
    : header.journal === 1 && header.base === crypto.createHash("sha1").update(baseText).digest("hex")

/** One write's changes of daemon records: the records set (changed or new) and the IDs removed. */
export interface RecordChanges {
  readonly set: ReadonlyArray<readonly [string, DaemonRecord]>
  readonly removed: ReadonlyArray<string>
}

/**
 * What changed from `before` to `after`, when only daemon records did; `undefined` when anything
 * else changed, which a journal line cannot say. Changes are found by identity (records and the
 * state's other members are immutable: an unchanged one is the same object), and `touched` names
 * the records set in place since `before` was written (StateStoreShape.recordDaemon).
 */
export const recordChanges = (
  before: PersistentState,
  after: PersistentState,
  touched: ReadonlySet<string>,
): RecordChanges | undefined => {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  for (const key of keys)
    if (key !== "daemons" && before[key as keyof PersistentState] !== after[key as keyof PersistentState])
      return undefined
  const ids = new Set(touched)
  if (before.daemons !== after.daemons) {
    for (const [id, record] of Object.entries(after.daemons)) if (before.daemons[id] !== record) ids.add(id)
    for (const id of Object.keys(before.daemons)) if (!Object.hasOwn(after.daemons, id)) ids.add(id)
  }
  const set: Array<readonly [string, DaemonRecord]> = []
  const removed: Array<string> = []
  for (const id of ids) {
    const record = Object.hasOwn(after.daemons, id) ? after.daemons[id] : undefined
    if (record === undefined) removed.push(id)
    else set.push([id, record])
  }
  return { set, removed }
}

/** The journal line of `changes`; `json` is a record's JSON text (made once per record by the caller). */
export const journalLine = (changes: RecordChanges, json: (record: DaemonRecord) => string): string => {
  const set = changes.set.map(([id, record]) => `${JSON.stringify(id)}:${json(record)}`).join(",")
  return `{"set":{${set}},"removed":${JSON.stringify(changes.removed)}}\n`
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The base's parsed JSON with its journal's changes applied to its `daemons`, when the journal's
 * header names this base; `lines` is how many lines were applied. Lines are applied up to the
 * first that is not whole (a write cut short by a crash: the state before it) or not a change.
 */
export const replayJournal = (
  base: unknown,
  baseText: string,
  journalText: string | undefined,
): { readonly value: unknown; readonly lines: number } => {
  if (journalText === undefined || !isObject(base) || !isObject(base.daemons))
    return { value: base, lines: 0 }
  const lines = journalText.split("\n")
  // the last element follows the last newline: empty, or a line the crash cut short
  lines.pop()
  const header = parseJsonText(lines[0])
  if (!isObject(header) || !namesBase(header, baseText)) return { value: base, lines: 0 }
  const daemons: Record<string, unknown> = { ...base.daemons }
  let applied = 0
  for (const text of lines.slice(1)) {
    const line = parseJsonText(text)
    if (!isObject(line) || !isObject(line.set) || !Array.isArray(line.removed)) break
    for (const [id, record] of Object.entries(line.set)) daemons[id] = record
    for (const id of line.removed) if (typeof id === "string") delete daemons[id]
    applied++
  }
  return { value: applied === 0 ? base : { ...base, daemons }, lines: applied }
}

/** `text` parsed as JSON; undefined when it is none (a line cut short, a corrupt file). */
export const parseJsonText = (text: string | undefined): unknown => {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
