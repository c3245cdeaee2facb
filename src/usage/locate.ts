import type { Node } from "kdljs"
import { type KdlToken, lexer } from "kdljs/src/parser/kdl.js"

/**
 * Finds the line of every node kdljs returned (kdljs gives no positions). The file is re-lexed
 * with kdljs's own lexer and the token stream walked with the same node structure as its
 * grammar (children blocks, `;`, escaped newlines, `/-` slash-dash of a node or a children
 * block), which yields the start line of each node that kdljs kept, in document (pre-)order.
 *
 * Best effort by design: when the count or a bare node name does not match kdljs's output, no
 * line is reported at all rather than a wrong one.
 */
export const locateNodes = (text: string, document: ReadonlyArray<Node>): Map<Node, number> => {
  const located = new Map<Node, number>()
  let found: ReadonlyArray<Found>
  try {
    found = walk(significant(lexer.tokenize(text).tokens))
  } catch {
    return located
  }
  const nodes: Array<Node> = []
  const visit = (ns: ReadonlyArray<Node>): void => {
    for (const n of ns) {
      nodes.push(n)
      visit(n.children)
    }
  }
  visit(document)
  if (nodes.length !== found.length) return located
  for (const [i, node] of nodes.entries()) {
    const f = found[i]!
    if (f.ident !== undefined && f.ident !== node.name) return new Map()
    located.set(node, f.line)
  }
  return located
}

interface Tok {
  readonly kind: string
  readonly line: number
  /** The text of a bare identifier (to cross-check node names). */
  readonly ident?: string
}
interface Found {
  readonly line: number
  readonly ident?: string | undefined
}

const lineOf = (t: KdlToken): number => t.startLine ?? 0

/** Collapses strings and comments to single tokens (or nothing) so the walk sees only structure. */
const significant = (tokens: ReadonlyArray<KdlToken>): Array<Tok> => {
  const out: Array<Tok> = []
  const kind = (i: number): string => tokens[i]?.tokenType.name ?? "EOF"
  let i = 0
  while (i < tokens.length) {
    const t = tokens[i]!
    switch (kind(i)) {
      case "WhiteSpace":
      case "BOM":
      case "LineComment":
        i++
        break
      case "OpenMultiLineComment": {
        let depth = 0
        do {
          if (kind(i) === "OpenMultiLineComment") depth++
          if (kind(i) === "CloseMultiLineComment") depth--
          i++
        } while (depth > 0 && i < tokens.length)
        break
      }
      case "OpenQuote":
      case "MultiLineOpenQuote": {
        const close = kind(i) === "OpenQuote" ? "CloseQuote" : "MultiLineCloseQuote"
        out.push({ kind: "String", line: lineOf(t) })
        i++
        while (i < tokens.length && kind(i) !== close) i++
        i++
        break
      }
      case "EscLine":
        // `\` then optional whitespace/comment and one newline: the node continues.
        i++
        while (kind(i) === "WhiteSpace" || kind(i) === "LineComment") i++
        if (kind(i) === "NewLine") i++
        break
      case "Identifier":
        out.push({ kind: "Identifier", line: lineOf(t), ident: t.image })
        i++
        break
      default:
        out.push({ kind: kind(i), line: lineOf(t) })
        i++
    }
  }
  return out
}

const walk = (toks: ReadonlyArray<Tok>): Array<Found> => {
  const found: Array<Found> = []
  let i = 0
  const peek = (): string => toks[i]?.kind ?? "EOF"
  const skipLineSpace = (): void => {
    while (peek() === "NewLine" || peek() === "SemiColon") i++
  }
  const block = (record: boolean): void => {
    i++ // {
    nodes(record)
    if (peek() === "RightBrace") i++
  }
  const node = (record: boolean): void => {
    const start = toks[i]
    if (start === undefined) return
    if (peek() === "LeftParenthesis") {
      while (peek() !== "RightParenthesis" && peek() !== "EOF") i++
      i++
    }
    const name = toks[i]
    if (record) found.push({ line: start.line, ident: name?.ident })
    i++
    for (;;) {
      const p = peek()
      if (p === "NewLine" || p === "SemiColon") {
        i++
        return
      }
      if (p === "EOF" || p === "RightBrace") return
      if (p === "LeftBrace") block(record)
      else if (p === "BlockComment") {
        i++
        skipLineSpace()
        if (peek() === "LeftBrace") block(false)
      } else i++
    }
  }
  function nodes(record: boolean): void {
    for (;;) {
      skipLineSpace()
      const p = peek()
      if (p === "EOF" || p === "RightBrace") return
      if (p === "BlockComment") {
        i++
        skipLineSpace()
        node(false)
      } else node(record)
    }
  }
  nodes(true)
  return found
}
