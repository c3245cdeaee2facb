import * as crypto from "node:crypto"
import type { DaemonRecord, PersistentState } from "./State.js"

// The state file's journal (docs/cli.md, the supervisor process): a write that changes only daemon records appends one
// line naming them to `<state file>.journal` instead of writing every record again (150 kB with
// 200 daemons, many times a second while daemons restart). The journal's first line names the
// base text it applies to by its hash: a journal left over from an earlier base (the supervisor
// stopped between writing a new base and starting a new journal) is never applied to the new one.

/** The journal of a state file. */
export const journalPathOf = (stateFile: string): string => `${stateFile}.journal`

/** What names a base text in its journal's header. */
export const baseHash = (baseText: string): string => crypto.createHash("sha1").update(baseText).digest("hex")

/** A journal's first line: the base it applies to. */
export const journalHeader = (hash: string): string => `${JSON.stringify({ journal: 1, base: hash })}\n`

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
  if (!isObject(header) || header.journal !== 1 || header.base !== baseHash(baseText))
    return { value: base, lines: 0 }
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
