import { isNewline } from "./chars.js"
import { Cursor, KdlSyntaxError } from "./cursor.js"
import { type KdlValue, readKeyword, readNumber, readString, startsNumber, startsString } from "./literals.js"

/**
 * A KDL 2.0 parser (https://kdl.dev/spec/): nodes with arguments, properties (the last of a
 * repeated key wins) and children, each with the line it starts on. Type annotations are read
 * and dropped (the usage language gives them no meaning) unless `detail` is asked for; `/-`
 * removes a node, an entry or a children block; the first syntax error ends the parse. The
 * official test suite (kdl-org/kdl tests/test_cases) runs in test/usage/kdl-test-cases.test.ts.
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
  /** Only with `{ detail: true }`. */
  readonly detail?: KdlNodeDetail
}

/** What the usage language ignores, kept for a faithful reprint (the conformance tests). */
export interface KdlNodeDetail {
  /** The node's type annotation: `(type)name`. */
  readonly type: string | undefined
  /** One per value, in order. */
  readonly values: ReadonlyArray<KdlEntryDetail>
  /** By property key; of a repeated key, the last one. */
  readonly properties: ReadonlyMap<string, KdlEntryDetail>
}

export interface KdlEntryDetail {
  readonly type: string | undefined
  /** A number as written (`0x1F`, `1.0e10`): a JS number cannot keep `1.0` or a 64-bit integer. */
  readonly number: string | undefined
}

export interface KdlParseOptions {
  readonly detail?: boolean
}

export type KdlParseResult =
  | { readonly ok: true; readonly nodes: ReadonlyArray<KdlDocNode> }
  | { readonly ok: false; readonly line: number; readonly message: string }

export const parseKdlDocument = (text: string, options: KdlParseOptions = {}): KdlParseResult => {
  const cur = new Cursor(text, options.detail === true)
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
      cur.skipLineSpace(false)
      node(cur)
    } else out.push(node(cur))
  }
}

/** `(type)`: its name, if one is here. */
const readType = (cur: Cursor): string | undefined => {
  if (cur.code() !== 0x28) return undefined
  cur.pos++
  cur.skipNodeSpace()
  if (!startsString(cur)) throw cur.unexpected(" (a type annotation holds a name)")
  const type = readString(cur)
  cur.skipNodeSpace()
  if (cur.code() !== 0x29) throw cur.unexpected()
  cur.pos++
  return type
}

/** A node's detail while it is read (only when the parse keeps detail). */
class DetailSink {
  readonly values: Array<KdlEntryDetail> = []
  readonly properties = new Map<string, KdlEntryDetail>()
  type: string | undefined = undefined
}

const node = (cur: Cursor): KdlDocNode => {
  const line = cur.line
  const detail = cur.detail ? new DetailSink() : undefined
  const type = readType(cur)
  if (detail !== undefined) detail.type = type
  cur.skipNodeSpace()
  if (!startsString(cur)) throw cur.unexpected(" (expected a node name)")
  const name = readString(cur)
  const values: Array<KdlValue> = []
  const properties: Record<string, KdlValue> = {}
  let children: Array<KdlDocNode> = []
  let block = false
  // after a children block, slashdashed or not, only more (slashdashed) children blocks
  let blockSeen = false
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
      blockSeen = true
      continue
    }
    if (cur.startsWith("/-")) {
      cur.pos += 2
      cur.skipLineSpace(false)
      if (cur.code() === 0x7b) {
        childBlock(cur)
        blockSeen = true
      } else {
        if (blockSeen) throw cur.unexpected(" (arguments and properties come before the children block)")
        entry(cur, [], {}, undefined)
      }
      continue
    }
    if (blockSeen) throw cur.unexpected(" (arguments and properties come before the children block)")
    if (!spaced) throw cur.unexpected(" (entries are separated by spaces)")
    entry(cur, values, properties, detail)
  }
  if (detail === undefined) return { name, values, properties, children, block, line }
  return { name, values, properties, children, block, line, detail }
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

/** One argument, or one `key=value` property; with its detail into `detail` when given. */
const entry = (
  cur: Cursor,
  values: Array<KdlValue>,
  properties: Record<string, KdlValue>,
  detail: DetailSink | undefined,
): void => {
  if (cur.code() === 0x28) {
    const type = readType(cur)
    cur.skipNodeSpace()
    const start = cur.pos
    const v = value(cur)
    values.push(v)
    detail?.values.push(entryDetail(cur, type, v, start))
    return
  }
  if (startsString(cur)) {
    const text = readString(cur)
    const back = { pos: cur.pos, line: cur.line }
    cur.skipNodeSpace()
    if (cur.code() === 0x3d) {
      cur.pos++
      cur.skipNodeSpace()
      const type = readType(cur)
      cur.skipNodeSpace()
      const start = cur.pos
      const v = value(cur)
      setProperty(properties, text, v)
      if (detail !== undefined) {
        detail.properties.delete(text)
        detail.properties.set(text, entryDetail(cur, type, v, start))
      }
      return
    }
    cur.pos = back.pos
    cur.line = back.line
    values.push(text)
    detail?.values.push({ type: undefined, number: undefined })
    return
  }
  const start = cur.pos
  const v = value(cur)
  values.push(v)
  detail?.values.push(entryDetail(cur, undefined, v, start))
}

/** The last of a repeated key wins, and stays last in the written order. */
const setProperty = (properties: Record<string, KdlValue>, key: string, v: KdlValue): void => {
  delete properties[key]
  // `__proto__` is defined rather than assigned: a key here, not the object's prototype
  if (key === "__proto__")
    Object.defineProperty(properties, key, { value: v, enumerable: true, writable: true, configurable: true })
  else properties[key] = v
}

const entryDetail = (cur: Cursor, type: string | undefined, v: KdlValue, start: number): KdlEntryDetail => ({
  type,
  number:
    typeof v === "number" && cur.src.charCodeAt(start) !== 0x23 ? cur.src.slice(start, cur.pos) : undefined,
})

const value = (cur: Cursor): KdlValue => {
  if (startsNumber(cur)) return readNumber(cur)
  if (startsString(cur)) return readString(cur)
  if (cur.code() === 0x23) return readKeyword(cur)
  throw cur.unexpected()
}
