import { isDigit, isNewline, isSpace, KEYWORDS } from "./chars.js"
import { Cursor, KdlSyntaxError } from "./cursor.js"

/**
 * The literals of KDL 2.0: bare identifiers, quoted and raw strings (single- and multi-line),
 * numbers and `#` keywords. Each reader starts at the literal's first character and leaves the
 * cursor just past it.
 */

export type KdlValue = string | number | boolean | null

/** Whether a string literal (quoted, raw or bare) starts here. */
export const startsString = (cur: Cursor): boolean => {
  const c = cur.code()
  if (c === 0x22) return true
  if (c === 0x23) {
    let i = 0
    while (cur.code(i) === 0x23) i++
    return cur.code(i) === 0x22
  }
  return cur.identLength() > 0 && !startsNumber(cur)
}

/** Moves past the identifier characters from here (a bare word, a number, a `#` keyword). */
const skipIdentChars = (cur: Cursor): void => {
  for (let n = cur.identLength(); n > 0; n = cur.identLength()) cur.pos += n
}

/** `1`, `-2.5e3`, `+0x1F`: a sign, then a digit. */
export const startsNumber = (cur: Cursor): boolean => {
  const c = cur.code()
  if (isDigit(c)) return true
  return (c === 0x2b || c === 0x2d) && isDigit(cur.code(1))
}

export const readString = (cur: Cursor): string => {
  const c = cur.code()
  if (c === 0x22) return cur.startsWith('"""') ? readMultiline(cur, 0) : readQuoted(cur)
  if (c === 0x23) {
    let hashes = 0
    while (cur.code(hashes) === 0x23) hashes++
    return cur.src.startsWith('"""', cur.pos + hashes) ? readMultiline(cur, hashes) : readRaw(cur, hashes)
  }
  return readIdentifier(cur)
}

const readIdentifier = (cur: Cursor): string => {
  const start = cur.pos
  skipIdentChars(cur)
  const word = cur.src.slice(start, cur.pos)
  if (word === "") throw cur.unexpected()
  if (KEYWORDS.has(word))
    throw new KdlSyntaxError(
      cur.line,
      `unexpected ${JSON.stringify(word)} (KDL 2 writes #${word}, or "${word}" for the text)`,
    )
  if (/^[+-]?\.?\d/.test(word)) {
    throw new KdlSyntaxError(
      cur.line,
      `unexpected ${JSON.stringify(word)} (not a number, and a bare word cannot start with a digit)`,
    )
  }
  if (word === "r" && (cur.code() === 0x23 || cur.code() === 0x22))
    throw new KdlSyntaxError(
      cur.line,
      `unexpected ${JSON.stringify(`r${cur.src[cur.pos]}`)} (KDL 2 writes a raw string as #"..."#)`,
    )
  return word
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
  "\\": "\\",
  '"': '"',
  b: "\b",
  f: "\f",
  s: " ",
}

/** A single-line `"..."` string with escapes. */
const readQuoted = (cur: Cursor): string => {
  const line = cur.line
  cur.pos++ // "
  let out = ""
  let chunk = cur.pos
  for (;;) {
    if (cur.eof) throw new KdlSyntaxError(line, "unclosed string")
    const c = cur.code()
    if (c === 0x22) {
      out += cur.src.slice(chunk, cur.pos)
      cur.pos++
      return out
    }
    if (isNewline(c))
      throw new KdlSyntaxError(
        cur.line,
        'newline in a "..." string (write \\n, or use a """ multi-line string)',
      )
    if (c === 0x5c) {
      out += cur.src.slice(chunk, cur.pos)
      out += readEscape(cur)
      chunk = cur.pos
    } else cur.stepLiteral()
  }
}

/** An escape after `\`: a named one, `\u{...}`, or whitespace (and newlines) to skip. */
const readEscape = (cur: Cursor): string => {
  cur.pos++ // backslash
  const c = cur.code()
  if (isSpace(c) || isNewline(c)) {
    skipEscapedWhitespace(cur)
    return ""
  }
  const ch = cur.src[cur.pos] ?? ""
  const named = ESCAPES[ch]
  if (named !== undefined) {
    cur.pos++
    return named
  }
  if (ch === "u" && cur.code(1) === 0x7b) {
    const close = cur.src.indexOf("}", cur.pos + 2)
    const hex = close < 0 ? "" : cur.src.slice(cur.pos + 2, close)
    const cp = /^[0-9a-fA-F]{1,6}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN
    if (Number.isNaN(cp) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      throw new KdlSyntaxError(cur.line, `invalid unicode escape \\u{${hex}}`)
    cur.pos = close + 1
    return String.fromCodePoint(cp)
  }
  throw new KdlSyntaxError(cur.line, `invalid escape \\${ch} in a string`)
}

/** The whitespace (newlines included) after a backslash that escapes it. */
const skipEscapedWhitespace = (cur: Cursor): void => {
  for (;;) {
    if (isSpace(cur.code())) cur.pos++
    else if (!cur.advanceNewline()) return
  }
}

/** A single-line raw string `#"..."#` (any number of `#`): no escapes. */
const readRaw = (cur: Cursor, hashes: number): string => {
  const line = cur.line
  const closer = `"${"#".repeat(hashes)}`
  const start = cur.pos + hashes + 1
  const end = cur.src.indexOf(closer, start)
  if (end < 0) throw new KdlSyntaxError(line, "unclosed raw string")
  cur.pos = start
  while (cur.pos < end) {
    if (isNewline(cur.code()))
      throw new KdlSyntaxError(line, 'newline in a #"..."# string (use a #"""...""""# multi-line string)')
    cur.stepLiteral()
  }
  cur.pos = end + closer.length
  return cur.src.slice(start, end)
}

/**
 * A multi-line string, `"""` (escapes) or `#"""` (raw): the text between the newline after the
 * opening quotes and the line of the closing ones, with that last line's indentation removed
 * from every line (whitespace-only lines become empty). As KDL 2 orders it, whitespace escapes
 * are resolved first (an escaped newline joins two lines; a `\` may stand on the closing
 * line), then the indentation is removed, then the other escapes are resolved.
 */
const readMultiline = (cur: Cursor, hashes: number): string => {
  const line = cur.line
  const closer = `"""${"#".repeat(hashes)}`
  cur.pos += hashes + 3
  if (!cur.advanceNewline()) throw cur.unexpected(' (a multi-line string starts with """ and a newline)')
  // The body's lines, whitespace escapes resolved, each with the source line it starts on.
  const lines: Array<string> = []
  const lineNumbers: Array<number> = []
  let text = ""
  let chunk = cur.pos
  let lineNumber = cur.line
  for (;;) {
    if (cur.eof) throw new KdlSyntaxError(line, "unclosed multi-line string")
    const c = cur.code()
    if (c === 0x22 && cur.startsWith(closer)) break
    if (isNewline(c)) {
      lines.push(text + cur.src.slice(chunk, cur.pos))
      lineNumbers.push(lineNumber)
      cur.advanceNewline()
      text = ""
      chunk = cur.pos
      lineNumber = cur.line
    } else if (c === 0x5c && hashes === 0) {
      const next = cur.code(1)
      if (isSpace(next) || isNewline(next)) {
        text += cur.src.slice(chunk, cur.pos)
        cur.pos++
        skipEscapedWhitespace(cur)
        chunk = cur.pos
      } else {
        // kept as written until after the dedent; its second character cannot close the string
        cur.pos++
        if (!cur.eof) cur.stepLiteral()
      }
    } else cur.stepLiteral()
  }
  const prefix = text + cur.src.slice(chunk, cur.pos)
  cur.pos += closer.length
  if (!ONLY_SPACES.test(prefix))
    throw new KdlSyntaxError(cur.line, "the closing quotes of a multi-line string must be on their own line")
  const body = lines
    .map((l, i) => {
      if (ONLY_SPACES.test(l)) return ""
      if (!l.startsWith(prefix))
        throw new KdlSyntaxError(
          lineNumbers[i] ?? line,
          "a multi-line string line is indented less than its closing quotes",
        )
      return l.slice(prefix.length)
    })
    .join("\n")
  return hashes > 0 ? body : unescapeMultiline(body, line)
}

const ONLY_SPACES = /^[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]*$/

/** Resolves the escapes left after the dedent (whitespace escapes are gone by then). */
const unescapeMultiline = (text: string, line: number): string => {
  if (!text.includes("\\")) return text
  const sub = new Cursor(text)
  sub.line = line
  let out = ""
  let i = 0
  while (i < text.length) {
    const j = text.indexOf("\\", i)
    if (j < 0) {
      out += text.slice(i)
      break
    }
    out += text.slice(i, j)
    sub.pos = j
    out += readEscape(sub)
    i = sub.pos
  }
  return out
}

/** `#true`, `#false`, `#null`, `#inf`, `#-inf`, `#nan`. */
export const readKeyword = (cur: Cursor): KdlValue => {
  const start = cur.pos
  cur.pos++
  skipIdentChars(cur)
  const word = cur.src.slice(start, cur.pos)
  switch (word) {
    case "#true":
      return true
    case "#false":
      return false
    case "#null":
      return null
    case "#inf":
      return Number.POSITIVE_INFINITY
    case "#-inf":
      return Number.NEGATIVE_INFINITY
    case "#nan":
      return Number.NaN
  }
  cur.pos = start
  throw new KdlSyntaxError(
    cur.line,
    `unexpected ${JSON.stringify(word)} (keywords are #true, #false, #null, #inf, #-inf, #nan)`,
  )
}

const RADIX: Readonly<Record<string, { readonly base: number; readonly digits: RegExp }>> = {
  x: { base: 16, digits: /^[0-9a-fA-F][0-9a-fA-F_]*$/ },
  o: { base: 8, digits: /^[0-7][0-7_]*$/ },
  b: { base: 2, digits: /^[01][01_]*$/ },
}
const DECIMAL = /^[+-]?[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][+-]?[0-9][0-9_]*)?$/

/** A decimal, hexadecimal (`0x`), octal (`0o`) or binary (`0b`) number; `_` separates digits. */
export const readNumber = (cur: Cursor): number => {
  const start = cur.pos
  skipIdentChars(cur)
  const word = cur.src.slice(start, cur.pos)
  const sign = word.startsWith("-") ? -1 : 1
  const unsigned = word.replace(/^[+-]/, "")
  const radix = unsigned.startsWith("0") ? RADIX[unsigned[1] ?? ""] : undefined
  if (radix !== undefined) {
    const digits = unsigned.slice(2)
    if (radix.digits.test(digits)) return sign * Number.parseInt(digits.replace(/_/g, ""), radix.base)
  } else if (DECIMAL.test(word)) return Number(word.replace(/_/g, ""))
  throw new KdlSyntaxError(cur.line, `unexpected ${JSON.stringify(word)} (not a number)`)
}
