// Adding and removing a daemon in the text of a configuration file, keeping everything else
// byte for byte. toml-eslint-parser is a spec-compliant TOML parser that gives every node its
// source range: an edit splices text at those ranges and never re-serialises the file, so
// comments, blank lines, key order, quoting and spacing outside the edited lines are kept (a
// parse-then-stringify library would drop the comments and reformat the rest).
import { type AST, parseTOML } from "toml-eslint-parser"
import { daemonTables, type NewDaemon } from "./daemonToml.js"

/** Why the text could not be edited (the caller names the file). */
export interface EditProblem {
  /** `syntax`: the text is not TOML; `exists`: add of a declared id; `missing`: remove of an undeclared one. */
  readonly kind: "syntax" | "exists" | "missing"
  readonly line?: number
  readonly message: string
}

interface Parsed {
  readonly text: string
  readonly program: AST.TOMLProgram
  /** Offset of each line's first character. */
  readonly lineStarts: ReadonlyArray<number>
  /** Lines that hold only a comment (0-based). */
  readonly commentLines: ReadonlySet<number>
}

/** A block of whole lines (0-based, inclusive). */
interface Span {
  readonly first: number
  readonly last: number
  /** A table's block (a blank-line run next to it goes with it), not a key's lines. */
  readonly table: boolean
}

const keyNames = (key: AST.TOMLKey): Array<string> =>
  key.keys.map((k) => (k.type === "TOMLBare" ? k.name : k.value))

/** Whether `path` is `<table>.<id>` (`daemons.<id>`, `slugs.<id>`) or inside it. */
const isUnder = (path: ReadonlyArray<string | number>, id: string, table: string) =>
  path.length >= 2 && path[0] === table && path[1] === id

const parse = (text: string): Parsed | EditProblem => {
  let program: AST.TOMLProgram
  try {
    program = parseTOML(text)
  } catch (e) {
    const err = e as { message?: string; lineNumber?: number }
    return {
      kind: "syntax",
      ...(typeof err.lineNumber === "number" ? { line: err.lineNumber } : {}),
      message: `not valid TOML (${err.message ?? String(e)}); fix the file first`,
    }
  }
  const lineStarts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1)
  // a file ending with a newline has no line after it
  if (lineStarts.length > 1 && lineStarts.at(-1) === text.length) lineStarts.pop()
  const commentLines = new Set<number>()
  for (const c of program.comments) {
    const line = c.loc.start.line - 1
    if (text.slice(lineStarts[line], c.range[0]).trim() === "") commentLines.add(line)
  }
  return { text, program, lineStarts, commentLines }
}

const lineCount = (p: Parsed) => (p.text === "" ? 0 : p.lineStarts.length)
const lineText = (p: Parsed, line: number): string =>
  p.text.slice(p.lineStarts[line], p.lineStarts[line + 1] ?? p.text.length)
const isBlank = (p: Parsed, line: number) => lineText(p, line).trim() === ""
const isSchemaLine = (p: Parsed, line: number) => lineText(p, line).trimStart().startsWith("#:")

const lineOf = (p: Parsed, offset: number): number => {
  let lo = 0
  let hi = p.lineStarts.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (p.lineStarts[mid]! <= offset) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** The first line of the comment lines directly above `line` (no blank between; not `#:schema`). */
const attachedAbove = (p: Parsed, line: number, lowest = 0): number => {
  let first = line
  while (first - 1 >= lowest && p.commentLines.has(first - 1) && !isSchemaLine(p, first - 1)) first--
  return first
}

/** A key-value's lines, with the comments directly above it. */
const kvSpan = (p: Parsed, kv: AST.TOMLKeyValue): Span => {
  const line = lineOf(p, kv.range[0])
  return { first: attachedAbove(p, line), last: lineOf(p, kv.range[1]), table: false }
}

/**
 * The lines that declare daemon `id` (or entry `id` of the table `under`, `slugs`): each
 * `[daemons.<id>]` table and its sub-tables (`[daemons.<id>.env]`, `.hooks`), from the comment lines directly above the header to the last
 * line before the next table's own comments, less trailing blank lines; and each key written
 * elsewhere (`<id>.run = ...` under `[daemons]`, `<id> = { ... }`) with the comments above it.
 */
const entrySpans = (p: Parsed, id: string, under = "daemons"): Array<Span> => {
  const items = p.program.body[0].body
  const tables = items.filter((i): i is AST.TOMLTable => i.type === "TOMLTable")
  const spans: Array<Span> = []
  for (const item of items)
    if (item.type === "TOMLKeyValue" && isUnder(keyNames(item.key), id, under)) spans.push(kvSpan(p, item))
  tables.forEach((table, i) => {
    if (!isUnder(table.resolvedKey, id, under)) {
      for (const kv of table.body)
        if (isUnder([...table.resolvedKey, ...keyNames(kv.key)], id, under)) spans.push(kvSpan(p, kv))
      return
    }
    const header = lineOf(p, table.range[0])
    const end = lineOf(p, table.range[1])
    const next = tables[i + 1]
    const nextLine = next === undefined ? lineCount(p) : lineOf(p, next.range[0])
    let last = attachedAbove(p, nextLine, end + 1) - 1
    while (last > end && isBlank(p, last)) last--
    spans.push({ first: attachedAbove(p, header), last, table: true })
  })
  spans.sort((a, b) => a.first - b.first)
  // tables separated by blank lines only (`[daemons.x]` and `[daemons.x.hooks]`) are one block
  const merged: Array<Span> = []
  for (const s of spans) {
    const prev = merged.at(-1)
    let between = prev === undefined ? -1 : prev.last + 1
    while (prev !== undefined && between < s.first && isBlank(p, between)) between++
    if (prev?.table && s.table && between >= s.first)
      merged[merged.length - 1] = { ...prev, last: Math.max(prev.last, s.last) }
    else merged.push(s)
  }
  return merged
}

/** Where daemon `id` is declared in the text (1-based line), or undefined. */
export const findDaemon = (text: string, id: string): number | undefined => {
  const p = parse(text)
  if (!("program" in p)) return undefined
  const first = entrySpans(p, id)[0]
  return first === undefined ? undefined : first.first + 1
}

/** The ids of the daemons a text declares (tables, dotted keys and inline tables alike), in order. */
export const declaredIds = (text: string): ReadonlyArray<string> => {
  const p = parse(text)
  if (!("program" in p)) return []
  const ids = new Set<string>()
  for (const item of p.program.body[0].body) {
    const paths =
      item.type === "TOMLTable"
        ? [item.resolvedKey, ...item.body.map((kv) => [...item.resolvedKey, ...keyNames(kv.key)])]
        : [keyNames(item.key)]
    for (const path of paths) if (path[0] === "daemons" && typeof path[1] === "string") ids.add(path[1])
  }
  return [...ids]
}

/** The line ending the text uses (CRLF when its first line ends so), LF for a new file. */
const eolOf = (text: string) => (/^[^\n]*\r\n/.test(text) ? "\r\n" : "\n")

/**
 * The text with the new daemon's tables appended after one blank line (a missing final newline
 * is added first). Refused when the text already declares the id.
 */
export const addDaemon = (text: string, daemon: NewDaemon): { text: string } | { problem: EditProblem } => {
  const p = parse(text)
  if (!("program" in p)) return { problem: p }
  const existing = entrySpans(p, daemon.id)[0]
  if (existing !== undefined)
    return {
      problem: {
        kind: "exists",
        line: existing.first + 1,
        message: `daemon ${JSON.stringify(daemon.id)} is already declared here; remove it first with \`supervisor daemons remove ${daemon.id}\`, or edit it in the file`,
      },
    }
  const eol = eolOf(text)
  const body = text === "" || /\n$/.test(text) ? text : text + eol
  const trimmed = body.trim() === "" ? "" : body
  return { text: `${trimmed}${trimmed === "" ? "" : eol}${daemonTables(daemon, eol)}` }
}

/**
 * The text without daemon `id`'s lines (entrySpans) and one run of blank lines next to each
 * block (the one after it, or before it at the end of the file), so that removing what
 * `addDaemon` appended gives the file back as it was. Refused when the text does not declare it.
 */
export const removeDaemon = (text: string, id: string): { text: string } | { problem: EditProblem } =>
  removeEntry(text, "daemons", id, `daemon ${JSON.stringify(id)} is not declared here`)

/**
 * The text without a `[table]` header left with nothing under it (no key, no comment, no comment
 * above it) and the blank lines that went with it; the text as it is otherwise.
 */
export const dropEmptyTable = (text: string, table: string): string => {
  const p = parse(text)
  if (!("program" in p)) return text
  const tables = p.program.body[0].body.filter((i): i is AST.TOMLTable => i.type === "TOMLTable")
  const i = tables.findIndex(
    (t) => t.kind === "standard" && t.resolvedKey.length === 1 && t.resolvedKey[0] === table,
  )
  const found = tables[i]
  if (found === undefined || found.body.length > 0) return text
  const header = lineOf(p, found.range[0])
  if (attachedAbove(p, header) !== header || lineText(p, header).includes("#")) return text
  const next = tables[i + 1]
  const end = next === undefined ? lineCount(p) : lineOf(p, next.range[0])
  for (let l = header + 1; l < end; l++) if (!isBlank(p, l)) return text
  // the header and the blank lines after it; at the end of the file, the blank lines before it
  let first = header
  if (next === undefined) while (first > 0 && isBlank(p, first - 1)) first--
  let out = ""
  for (let l = 0; l < lineCount(p); l++) if (l < first || l >= end) out += lineText(p, l)
  return out
}

/**
 * The text without entry `id` of `table` (`[slugs]`'s `shop = { ... }`, or a `[slugs.shop]`
 * table), as `removeDaemon` removes a daemon; `missing`: the message when it is not there.
 */
export const removeEntry = (
  text: string,
  table: string,
  id: string,
  missing: string,
): { text: string } | { problem: EditProblem } => {
  const p = parse(text)
  if (!("program" in p)) return { problem: p }
  const spans = entrySpans(p, id, table)
  if (spans.length === 0) return { problem: { kind: "missing", message: missing } }
  const drop = new Set<number>()
  for (const s of spans) for (let l = s.first; l <= s.last; l++) drop.add(l)
  const count = lineCount(p)
  for (const s of spans) {
    if (!s.table) continue
    let after = s.last + 1
    while (after < count && isBlank(p, after) && !drop.has(after)) after++
    if (after < count) for (let l = s.last + 1; l < after; l++) drop.add(l)
    else for (let l = s.first - 1; l >= 0 && isBlank(p, l) && !drop.has(l); l--) drop.add(l)
  }
  let out = ""
  for (let l = 0; l < count; l++) if (!drop.has(l)) out += lineText(p, l)
  return { text: out }
}
