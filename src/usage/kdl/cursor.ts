import {
  isDisallowed,
  isHighSurrogate,
  isIdentifierChar,
  isLowSurrogate,
  isNewline,
  isSpace,
} from "./chars.js"

/** A KDL syntax error: where it is and what was found there. */
export class KdlSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The read position in a KDL document, with its line (1-based). Every consumer of characters
 * goes through `advanceNewline` or `take`, so the line count stays right inside multi-line
 * strings and comments.
 */
export class Cursor {
  pos = 0
  line = 1
  /** How many `{` blocks are open here (bounded by the parser: see MAX_DEPTH in parse.ts). */
  depth = 0

  /**
   * @param detail whether the parser keeps what the usage language ignores (type annotations,
   *   numbers as written), for a faithful reprint of the document
   */
  constructor(
    readonly src: string,
    readonly detail = false,
  ) {}

  get eof(): boolean {
    return this.pos >= this.src.length
  }

  code(offset = 0): number {
    return this.pos + offset < this.src.length ? this.src.charCodeAt(this.pos + offset) : -1
  }

  startsWith(text: string): boolean {
    return this.src.startsWith(text, this.pos)
  }

  /**
   * How many UTF-16 units the identifier character at `offset` takes: 1, 2 for a character
   * above U+FFFF (a surrogate pair: emoji, mathematical letters), 0 when none starts there.
   */
  identLength(offset = 0): number {
    const c = this.code(offset)
    if (isHighSurrogate(c)) return isLowSurrogate(this.code(offset + 1)) ? 2 : 0
    return isIdentifierChar(c) ? 1 : 0
  }

  /**
   * Steps over one character of a string or comment body. KDL 2 forbids some code points
   * anywhere in a document, strings and comments included (controls, bidi overrides, a BOM
   * after the start, lone surrogates): at one of those this throws.
   */
  stepLiteral(): void {
    const c = this.code()
    if (c >= 0x20 && c < 0x7f) this.pos++
    else if (isHighSurrogate(c) && isLowSurrogate(this.code(1))) this.pos += 2
    else if (c !== -1 && !isDisallowed(c)) this.pos++
    else throw this.unexpected(" (KDL forbids this code point anywhere, even in strings and comments)")
  }

  /** Consumes one newline (CRLF as one); returns false when not at a newline. */
  advanceNewline(): boolean {
    const c = this.code()
    if (!isNewline(c)) return false
    this.pos += c === 0x0d && this.code(1) === 0x0a ? 2 : 1
    this.line++
    return true
  }

  /** `unexpected "x"` (or end of input) at the current position, with an optional hint. */
  unexpected(hint = ""): KdlSyntaxError {
    if (this.eof) return new KdlSyntaxError(this.line, `unexpected end of input${hint}`)
    const cp = this.src.codePointAt(this.pos) ?? 0
    const shown =
      isDisallowed(cp) || isNewline(cp)
        ? `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`
        : JSON.stringify(String.fromCodePoint(cp))
    return new KdlSyntaxError(this.line, `unexpected ${shown}${hint}`)
  }

  /** Skips spaces and block comments (nested); returns whether anything was skipped. */
  skipWs(): boolean {
    const start = this.pos
    for (;;) {
      const c = this.code()
      if (isSpace(c)) this.pos++
      else if (c === 0x2f && this.code(1) === 0x2a) this.skipBlockComment()
      else return this.pos > start
    }
  }

  private skipBlockComment(): void {
    const line = this.line
    let depth = 0
    do {
      if (this.eof) throw new KdlSyntaxError(line, "unclosed /* comment")
      if (this.code() === 0x2f && this.code(1) === 0x2a) {
        depth++
        this.pos += 2
      } else if (this.code() === 0x2a && this.code(1) === 0x2f) {
        depth--
        this.pos += 2
      } else if (!this.advanceNewline()) this.stepLiteral()
    } while (depth > 0)
  }

  /** Skips a `//` comment up to (not including) the end of its line. */
  skipLineComment(): void {
    while (!this.eof && !isNewline(this.code())) this.stepLiteral()
  }

  /**
   * Skips node-space: spaces, block comments and escaped newlines (`\` then optional spaces or
   * a `//` comment, then a newline or the end). Returns whether anything was skipped.
   */
  skipNodeSpace(): boolean {
    const start = this.pos
    for (;;) {
      this.skipWs()
      if (this.code() !== 0x5c) return this.pos > start
      this.pos++
      this.skipWs()
      if (this.startsWith("//")) this.skipLineComment()
      if (!this.advanceNewline() && !this.eof)
        throw this.unexpected(" (a \\ outside a string continues the node on the next line)")
    }
  }

  /**
   * Skips node-space, newlines and `//` comments; between nodes (`semicolons`), stray `;` too.
   * After a `/-` a `;` is not space: `/-;` comments out nothing.
   */
  skipLineSpace(semicolons = true): void {
    for (;;) {
      this.skipNodeSpace()
      if (this.advanceNewline()) continue
      if (this.startsWith("//")) {
        this.skipLineComment()
        continue
      }
      if (semicolons && this.code() === 0x3b) {
        this.pos++
        continue
      }
      return
    }
  }
}
