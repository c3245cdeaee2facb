/**
 * Character classes of KDL 2.0 (https://kdl.dev/spec/, "Full Grammar"), as char-code tests so
 * the parser can scan a large spec without building substrings per character.
 */

/** CR, LF, NEL, VT, FF, LS, PS: each ends a line (CRLF counts once). */
export const isNewline = (c: number): boolean =>
  c === 0x0a || c === 0x0d || c === 0x85 || c === 0x0b || c === 0x0c || c === 0x2028 || c === 0x2029

/** Tab, space and the Unicode spaces of the grammar's `unicode-space`. */
export const isSpace = (c: number): boolean =>
  c === 0x20 ||
  c === 0x09 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000

/** Code points KDL 2 forbids anywhere in a document (a BOM only at its start). */
export const isDisallowed = (c: number): boolean =>
  c <= 0x08 ||
  (c >= 0x0e && c <= 0x1f) ||
  c === 0x7f ||
  (c >= 0xd800 && c <= 0xdfff) ||
  c === 0x200e ||
  c === 0x200f ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2066 && c <= 0x2069) ||
  c === 0xfeff

/** `\ / ( ) { } ; [ ] " # =`: never part of a bare identifier. */
const SPECIAL = new Set([0x5c, 0x2f, 0x28, 0x29, 0x7b, 0x7d, 0x3b, 0x5b, 0x5d, 0x22, 0x23, 0x3d])

/** For one UTF-16 unit; a character above U+FFFF (a surrogate pair) is checked by `Cursor.identLength`. */
export const isIdentifierChar = (c: number): boolean =>
  c < 0x80 ? c >= 0 && ASCII_IDENTIFIER[c] === 1 : !isSpace(c) && !isNewline(c) && !isDisallowed(c)

/** The ASCII answers of `isIdentifierChar`, looked up: identifiers are most of a spec's text. */
const ASCII_IDENTIFIER = Uint8Array.from({ length: 0x80 }, (_, c) =>
  !SPECIAL.has(c) && !isSpace(c) && !isNewline(c) && !isDisallowed(c) ? 1 : 0,
)

/** Whether c is the first (high) half of a UTF-16 surrogate pair. */
export const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/** Whether c is the second (low) half of a UTF-16 surrogate pair. */
export const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

export const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/** Bare words KDL 2 reserves: KDL 1 spelled these without the `#`. */
export const KEYWORDS: ReadonlySet<string> = new Set(["true", "false", "null", "inf", "-inf", "nan"])
