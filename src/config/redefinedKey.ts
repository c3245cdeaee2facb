// smol-toml says only "trying to redefine an already defined table or value" for a key or table
// given twice: this names it, and the line of its first definition, from the text.
import { splitKey } from "./locate.js"

export interface Redefinition {
  /** The dotted key (`daemons.api.run`) or table (`daemons.api`) defined again. */
  readonly key: string
  readonly table: boolean
  /** The line that defines it first (1-based), when found. */
  readonly first: number | undefined
}

const HEADER = /^\[\[?([^\]]+)\]\]?/
const ASSIGN = /^((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=/

/**
 * What line `line` (1-based) of `text` defines again, read line by line as locate.ts reads keys
 * (a table header, or a key under the table in force); best effort: undefined when unsure.
 */
export const redefinition = (text: string, line: number): Redefinition | undefined => {
  const lines = text.split(/\r?\n/).slice(0, line)
  let table: Array<string> = []
  const defined: Array<string | undefined> = [] // per line, the path it defines
  let isHeader = false
  for (const raw of lines) {
    const trimmed = raw.replace(/^\s+/, "")
    const header = HEADER.exec(trimmed)
    const assign = header ? null : ASSIGN.exec(trimmed)
    if (header) table = splitKey(header[1]!)
    isHeader = header !== null
    const path = header ? table : assign ? [...table, ...splitKey(assign[1]!)] : undefined
    defined.push(path === undefined || path.length === 0 ? undefined : path.join("."))
  }
  const key = defined[line - 1]
  if (lines.length < line || key === undefined) return undefined
  // the key itself, else (a table) a dotted key that made it (`daemons.api.run = ...`, then `[daemons]`)
  const same = defined.indexOf(key)
  const inside = defined.findIndex((d) => d?.startsWith(`${key}.`))
  const first =
    same >= 0 && same < line - 1 ? same : isHeader && inside >= 0 && inside < line - 1 ? inside : -1
  return { key, table: isHeader, first: first >= 0 ? first + 1 : undefined }
}
