// The `logs --jq` language: a small subset of jq, parsed into a tree (eval.ts runs it). No
// variables, definitions, recursion, reduce or I/O: an expression cannot loop or read anything
// but the entry it is given, so it is safe to run inside the supervisor for every stored line.

export type Node =
  | { readonly t: "identity" }
  | { readonly t: "literal"; readonly value: unknown }
  | { readonly t: "index"; readonly of: Node; readonly key: Node; readonly optional: boolean }
  | { readonly t: "iterate"; readonly of: Node; readonly optional: boolean }
  | { readonly t: "pipe"; readonly left: Node; readonly right: Node }
  | { readonly t: "comma"; readonly left: Node; readonly right: Node }
  | { readonly t: "binary"; readonly op: BinaryOp; readonly left: Node; readonly right: Node }
  | { readonly t: "neg"; readonly of: Node }
  | { readonly t: "array"; readonly of: Node | undefined }
  | { readonly t: "object"; readonly entries: ReadonlyArray<readonly [Node, Node]> }
  | { readonly t: "call"; readonly name: string; readonly args: ReadonlyArray<Node> }

export type BinaryOp =
  | "|"
  | "//"
  | "or"
  | "and"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"

/** A problem with the expression itself, said as `--jq` reports it. */
export class JqSyntaxError extends Error {}

type Token =
  | { readonly k: "num"; readonly v: number }
  | { readonly k: "str"; readonly v: string }
  | { readonly k: "ident"; readonly v: string }
  | { readonly k: "field"; readonly v: string } // `.name`
  | { readonly k: "op"; readonly v: string }
  | { readonly k: "end" }

const OPS = [
  "$",
  "//",
  "==",
  "!=",
  "<=",
  ">=",
  "|",
  ",",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ":",
  ";",
  "?",
  ".",
]

const readString = (src: string, at: number): { readonly v: string; readonly next: number } => {
  let i = at + 1
  let out = ""
  while (i < src.length && src[i] !== '"') {
    if (src[i] === "\\") {
      const c = src[i + 1]
      if (c === "u") {
        out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16))
        i += 6
        continue
      }
      if (c === "(") throw new JqSyntaxError("string interpolation \\(...) is not supported")
      out += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[c ?? ""] ?? c ?? ""
      i += 2
    } else out += src[i++]
  }
  if (i >= src.length) throw new JqSyntaxError("unterminated string")
  return { v: out, next: i + 1 }
}

const tokenize = (src: string): Array<Token> => {
  const out: Array<Token> = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
      continue
    }
    if (c === "#") throw new JqSyntaxError("comments are not supported")
    if (c === '"') {
      const s = readString(src, i)
      out.push({ k: "str", v: s.v })
      i = s.next
      continue
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i))
    if (num !== null && !(c === "." && /[A-Za-z_]/.test(src[i + 1] ?? ""))) {
      out.push({ k: "num", v: Number(num[0]) })
      i += num[0].length
      continue
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i + (c === "." ? 1 : 0)))
    if (c === "." && word !== null) {
      out.push({ k: "field", v: word[0] })
      i += 1 + word[0].length
      continue
    }
    if (word !== null && c !== ".") {
      out.push({ k: "ident", v: word[0] })
      i += word[0].length
      continue
    }
    const op = OPS.find((o) => src.startsWith(o, i))
    if (op === undefined) throw new JqSyntaxError(`unexpected character ${JSON.stringify(c)}`)
    if (op === "." && src[i + 1] === ".") throw new JqSyntaxError("recursive descent (..) is not supported")
    out.push({ k: "op", v: op })
    i += op.length
  }
  out.push({ k: "end" })
  return out
}

const UNSUPPORTED = new Set(["as", "def", "reduce", "foreach", "if", "try", "label", "import", "include"])
const MAX_DEPTH = 64

/** Parses an expression; throws JqSyntaxError saying what is wrong or not supported. */
export const parseJq = (src: string): Node => {
  if (src.length > 4096) throw new JqSyntaxError("the expression is longer than 4096 characters")
  const toks = tokenize(src)
  let p = 0
  let depth = 0
  const peek = () => toks[p]!
  const isOp = (v: string) => {
    const t = peek()
    return t.k === "op" && t.v === v
  }
  const expect = (v: string) => {
    if (!isOp(v)) throw new JqSyntaxError(`expected ${JSON.stringify(v)} ${where()}`)
    p++
  }
  const where = () => {
    const t = peek()
    return t.k === "end" ? "at the end" : `before ${JSON.stringify("v" in t ? String(t.v) : "")}`
  }
  const nested = <A>(f: () => A): A => {
    if (++depth > MAX_DEPTH) throw new JqSyntaxError("the expression is nested too deeply")
    try {
      return f()
    } finally {
      depth--
    }
  }
  const binaryLevel =
    (ops: ReadonlyArray<string>, next: () => Node, once = false) =>
    (): Node => {
      let left = next()
      for (;;) {
        const t = peek()
        const op =
          t.k === "op" && ops.includes(t.v) ? t.v : t.k === "ident" && ops.includes(t.v) ? t.v : undefined
        if (op === undefined) return left
        p++
        left = { t: "binary", op: op as BinaryOp, left, right: next() }
        if (once) return left
      }
    }
  const postfix = (base: Node): Node => {
    let node = base
    for (;;) {
      const t = peek()
      if (t.k === "field") {
        p++
        node = { t: "index", of: node, key: { t: "literal", value: t.v }, optional: false }
      } else if (isOp(".") && toks[p + 1]?.k === "str") {
        p++
        const key = peek() as { v: string }
        p++
        node = { t: "index", of: node, key: { t: "literal", value: key.v }, optional: false }
      } else if (isOp("[")) {
        p++
        if (isOp("]")) {
          p++
          node = { t: "iterate", of: node, optional: false }
        } else {
          const key = nested(pipe)
          expect("]")
          node = { t: "index", of: node, key, optional: false }
        }
      } else if (isOp(".") && toks[p + 1]?.k === "op" && (toks[p + 1] as { v: string }).v === "[") {
        p++ // `.[...]` after a term: the same as `[...]`
      } else if (isOp("?") && (node.t === "index" || node.t === "iterate")) {
        p++
        node = { ...node, optional: true }
      } else return node
    }
  }
  const primary = (): Node => {
    const t = peek()
    if (t.k === "num" || t.k === "str") {
      p++
      return postfix({ t: "literal", value: t.v })
    }
    if (t.k === "field") return postfix({ t: "identity" })
    if (t.k === "ident") {
      p++
      if (t.v === "true" || t.v === "false") return postfix({ t: "literal", value: t.v === "true" })
      if (t.v === "null") return postfix({ t: "literal", value: null })
      if (UNSUPPORTED.has(t.v)) throw new JqSyntaxError(`\`${t.v}\` is not supported`)
      const args: Array<Node> = []
      if (isOp("(")) {
        p++
        args.push(nested(pipe))
        while (isOp(";")) {
          p++
          args.push(nested(pipe))
        }
        expect(")")
      }
      return postfix({ t: "call", name: t.v, args })
    }
    if (isOp(".")) {
      p++
      if (peek().k === "str") {
        const key = peek() as { v: string }
        p++
        return postfix({
          t: "index",
          of: { t: "identity" },
          key: { t: "literal", value: key.v },
          optional: false,
        })
      }
      return postfix({ t: "identity" })
    }
    if (isOp("$")) throw new JqSyntaxError("variables ($name) are not supported")
    if (isOp("(")) {
      p++
      const inner = nested(pipe)
      expect(")")
      return postfix(inner)
    }
    if (isOp("[")) {
      p++
      if (isOp("]")) {
        p++
        return postfix({ t: "array", of: undefined })
      }
      const of = nested(pipe)
      expect("]")
      return postfix({ t: "array", of })
    }
    if (isOp("{")) {
      p++
      const entries: Array<readonly [Node, Node]> = []
      while (!isOp("}")) {
        const k = peek()
        let key: Node
        if (k.k === "ident" || k.k === "str") {
          p++
          key = { t: "literal", value: k.v }
        } else if (isOp("(")) {
          p++
          key = nested(pipe)
          expect(")")
        } else throw new JqSyntaxError(`expected an object key ${where()}`)
        let value: Node = { t: "index", of: { t: "identity" }, key, optional: false }
        if (isOp(":")) {
          p++
          value = nested(alternative)
        }
        entries.push([key, value])
        if (!isOp(",")) break
        p++
      }
      expect("}")
      return postfix({ t: "object", entries })
    }
    throw new JqSyntaxError(`unexpected ${where().replace(/^before /, "")}`)
  }
  const unary = (): Node => {
    if (isOp("-")) {
      p++
      return { t: "neg", of: nested(unary) }
    }
    return primary()
  }
  const mul = binaryLevel(["*", "/", "%"], unary)
  const add = binaryLevel(["+", "-"], mul)
  const cmp = binaryLevel(["==", "!=", "<=", ">=", "<", ">"], add, true)
  const and = binaryLevel(["and"], cmp)
  const or = binaryLevel(["or"], and)
  const alternative = binaryLevel(["//"], or)
  const comma = (): Node => {
    let left = alternative()
    while (isOp(",")) {
      p++
      left = { t: "comma", left, right: alternative() }
    }
    return left
  }
  const pipe = (): Node => {
    const left = comma()
    if (!isOp("|")) return left
    p++
    return { t: "pipe", left, right: nested(pipe) }
  }
  const tree = pipe()
  const last = peek()
  if (last.k === "ident" && UNSUPPORTED.has(last.v)) throw new JqSyntaxError(`\`${last.v}\` is not supported`)
  if (last.k !== "end") throw new JqSyntaxError(`unexpected ${where().replace(/^before /, "")}`)
  return tree
}
