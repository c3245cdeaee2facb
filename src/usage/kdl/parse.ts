import { isNewline } from "./chars.js"
import { Cursor, KdlSyntaxError } from "./cursor.js"
import { type KdlValue, readKeyword, readNumber, readString, startsNumber, startsString } from "./literals.js"

/**
 * A KDL 2.0 parser (https://kdl.dev/spec/): nodes with arguments, properties (the last of a
 * repeated key wins) and children, each with the line it starts on. Type annotations are read
 * and dropped (the usage language gives them no meaning); `/-` removes a node, an entry or a
 * children block; the first syntax error ends the parse.
 *
 * Written for this module rather than taken from kdljs: a spec of mise's size (250 KB) took
 * kdljs 0.8 s cold, kdljs has no source positions, and it rejects `cmd "a"{}` (valid KDL 2:
 * node-space before a children block is optional).
 */

export interface KdlDocNode {
  readonly name: string
  readonly values: ReadonlyArray<KdlValue>
  /** In the order written; of a repeated key, the last one counts. */
  readonly properties: Readonly<Record<string, KdlValue>>
  readonly children: ReadonlyArray<KdlDocNode>
  /** Whether a `{ }` block was written (possibly empty). */
  readonly block: boolean
  readonly line: number
}

export type KdlParseResult =
  | { readonly ok: true; readonly nodes: ReadonlyArray<KdlDocNode> }
  | { readonly ok: false; readonly line: number; readonly message: string }

export const parseKdlDocument = (text: string): KdlParseResult => {
  const cur = new Cursor(text)
  if (cur.code() === 0xfeff) cur.pos++
  try {
    return { ok: true, nodes: nodes(cur, false) }
  } catch (e) {
    if (e instanceof KdlSyntaxError) return { ok: false, line: e.line, message: e.message }
    throw e
  }
}

const nodes = (cur: Cursor, inBlock: boolean): Array<KdlDocNode> => {
  const out: Array<KdlDocNode> = []
  for (;;) {
    cur.skipLineSpace()
    if (cur.eof) {
      if (inBlock) throw cur.unexpected(" (a { block is not closed)")
      return out
    }
    if (cur.code() === 0x7d) {
      if (inBlock) return out
      throw cur.unexpected(" (no block is open)")
    }
    if (cur.startsWith("/-")) {
      cur.pos += 2
      cur.skipLineSpace()
      node(cur)
    } else out.push(node(cur))
  }
}

/** `(type)`: read and dropped. */
const skipType = (cur: Cursor): void => {
  if (cur.code() !== 0x28) return
  cur.pos++
  cur.skipNodeSpace()
  if (!startsString(cur)) throw cur.unexpected(" (a type annotation holds a name)")
  readString(cur)
  cur.skipNodeSpace()
  if (cur.code() !== 0x29) throw cur.unexpected()
  cur.pos++
}

const node = (cur: Cursor): KdlDocNode => {
  const line = cur.line
  skipType(cur)
  cur.skipNodeSpace()
  if (!startsString(cur)) throw cur.unexpected(" (expected a node name)")
  const name = readString(cur)
  const values: Array<KdlValue> = []
  const properties: Record<string, KdlValue> = {}
  let children: Array<KdlDocNode> = []
  let block = false
  for (;;) {
    const spaced = cur.skipNodeSpace()
    const c = cur.code()
    if (c === -1 || c === 0x7d) break
    if (c === 0x3b || isNewline(c)) {
      if (c === 0x3b) cur.pos++
      else cur.advanceNewline()
      break
    }
    if (cur.startsWith("//")) {
      cur.skipLineComment()
      cur.advanceNewline()
      break
    }
    if (c === 0x7b) {
      if (block) throw cur.unexpected(" (a node has one children block)")
      children = childBlock(cur)
      block = true
      continue
    }
    if (cur.startsWith("/-")) {
      cur.pos += 2
      cur.skipLineSpace()
      if (cur.code() === 0x7b) childBlock(cur)
      else {
        if (block) throw cur.unexpected(" (arguments and properties come before the children block)")
        entry(cur, [], {})
      }
      continue
    }
    if (block) throw cur.unexpected(" (arguments and properties come before the children block)")
    if (!spaced) throw cur.unexpected(" (entries are separated by spaces)")
    entry(cur, values, properties)
  }
  return { name, values, properties, children, block, line }
}

/** Blocks nested deeper than this are refused: each level costs stack in every later stage. */
export const MAX_DEPTH = 100

const childBlock = (cur: Cursor): Array<KdlDocNode> => {
  if (cur.depth >= MAX_DEPTH)
    throw new KdlSyntaxError(
      cur.line,
      `blocks nested more than ${MAX_DEPTH} deep; a usage spec needs only a few levels`,
    )
  cur.pos++ // {
  cur.depth++
  const inner = nodes(cur, true)
  cur.depth--
  cur.pos++ // }
  return inner
}

/** One argument, or one `key=value` property. */
const entry = (cur: Cursor, values: Array<KdlValue>, properties: Record<string, KdlValue>): void => {
  if (cur.code() === 0x28) {
    skipType(cur)
    cur.skipNodeSpace()
    values.push(value(cur))
    return
  }
  if (startsString(cur)) {
    const text = readString(cur)
    const back = { pos: cur.pos, line: cur.line }
    cur.skipNodeSpace()
    if (cur.code() === 0x3d) {
      cur.pos++
      cur.skipNodeSpace()
      skipType(cur)
      cur.skipNodeSpace()
      const v = value(cur)
      delete properties[text]
      properties[text] = v
      return
    }
    cur.pos = back.pos
    cur.line = back.line
    values.push(text)
    return
  }
  values.push(value(cur))
}

const value = (cur: Cursor): KdlValue => {
  if (startsNumber(cur)) return readNumber(cur)
  if (startsString(cur)) return readString(cur)
  if (cur.code() === 0x23) return readKeyword(cur)
  throw cur.unexpected()
}
