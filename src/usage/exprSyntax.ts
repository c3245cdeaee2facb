/**
 * A syntax check for `validate=` expressions, in the expression language usage evaluates them
 * with (expr-lang: usage-validation's `check` compiles without evaluating). Only the shape is
 * checked: literals, names, calls, member and index access, closures (`{# > 0}`), maps, lists,
 * `let`, `if`/`else`, the unary, binary, ternary and pipe operators. Unknown function names are
 * not an error here (usage reports them only when a value reaches them).
 */

type Tok = {
  readonly kind: "num" | "str" | "name" | "op" | "end"
  readonly text: string
  readonly at: number
}

const OPS = ["?.", "??", "..", "==", "!=", "<=", ">=", "&&", "||", "**", ..."+-*/%^<>!()[]{},:?.|;=#"]
const WORD_OPS = ["and", "or", "in", "matches", "contains", "startsWith", "endsWith"]

class ExprError extends Error {}

const tokenize = (src: string): Array<Tok> => {
  const toks: Array<Tok> = []
  let i = 0
  while (i < src.length) {
    const rest = src.slice(i)
    const space = /^\s+/.exec(rest)
    if (space !== null) {
      i += space[0].length
      continue
    }
    const num =
      /^(0[xX][\da-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)/.exec(
        rest,
      )
    if (num !== null) {
      toks.push({ kind: "num", text: num[0], at: i })
      i += num[0].length
      continue
    }
    const q = rest[0]!
    if (q === '"' || q === "'" || q === "`") {
      let j = 1
      while (j < rest.length && rest[j] !== q) j += q !== "`" && rest[j] === "\\" ? 2 : 1
      if (j >= rest.length) throw new ExprError(`unterminated string at column ${i + 1}`)
      toks.push({ kind: "str", text: rest.slice(0, j + 1), at: i })
      i += j + 1
      continue
    }
    const name = /^[A-Za-z_$][\w$]*/.exec(rest)
    if (name !== null) {
      toks.push({ kind: "name", text: name[0], at: i })
      i += name[0].length
      continue
    }
    const op = OPS.find((o) => rest.startsWith(o))
    if (op === undefined) throw new ExprError(`unexpected character ${JSON.stringify(q)} at column ${i + 1}`)
    toks.push({ kind: "op", text: op, at: i })
    i += op.length
  }
  toks.push({ kind: "end", text: "end of expression", at: src.length })
  return toks
}

const BINARY: Readonly<Record<string, number>> = {
  "||": 10,
  or: 10,
  "&&": 15,
  and: 15,
  "==": 20,
  "!=": 20,
  "<": 20,
  ">": 20,
  "<=": 20,
  ">=": 20,
  in: 20,
  matches: 20,
  contains: 20,
  startsWith: 20,
  endsWith: 20,
  "..": 25,
  "+": 30,
  "-": 30,
  "*": 60,
  "/": 60,
  "%": 60,
  "**": 100,
  "^": 100,
  "??": 500,
}

const parse = (toks: ReadonlyArray<Tok>): void => {
  let p = 0
  const peek = (k = 0): Tok => toks[Math.min(p + k, toks.length - 1)]!
  const is = (text: string, k = 0): boolean => peek(k).kind !== "str" && peek(k).text === text
  const fail = (t: Tok = peek()): never => {
    throw new ExprError(
      t.kind === "end" ? "unexpected end of expression" : `unexpected ${t.text} at column ${t.at + 1}`,
    )
  }
  const expect = (text: string): void => {
    if (!is(text)) {
      const t = peek()
      throw new ExprError(
        `expected ${text}, got ${t.kind === "end" ? "the end of the expression" : `${t.text} at column ${t.at + 1}`}`,
      )
    }
    p++
  }
  const list = (close: string, item: () => void): void => {
    while (!is(close)) {
      item()
      if (!is(",")) break
      p++
    }
    expect(close)
  }
  /** A whole expression: `let`, pipes and the ternary. */
  const expression = (): void => {
    if (is("let") && peek(1).kind === "name") {
      p++
      if (peek().kind !== "name") fail()
      p++
      expect("=")
      expression()
      expect(";")
      expression()
      return
    }
    ternary()
    while (is("|")) {
      p++
      postfix(primary)
    }
  }
  const ternary = (): void => {
    binary(0)
    if (!is("?")) return
    p++
    if (is(":")) {
      p++
      ternary()
      return
    }
    ternary()
    expect(":")
    ternary()
  }
  const binary = (min: number): void => {
    unary()
    for (;;) {
      const t = peek()
      const notOp = t.text === "not" && t.kind === "name" && WORD_OPS.includes(peek(1).text)
      const op = notOp ? peek(1).text : t.kind === "op" || t.kind === "name" ? t.text : ""
      const prec = BINARY[op]
      if (prec === undefined || prec <= min) return
      p += notOp ? 2 : 1
      binary(op === "**" || op === "^" ? prec - 1 : prec)
    }
  }
  const unary = (): void => {
    if (is("not") || is("!") || is("-") || is("+")) {
      p++
      unary()
      return
    }
    postfix(primary)
  }
  const postfix = (head: () => void): void => {
    head()
    for (;;) {
      if (is(".") || is("?.")) {
        p++
        if (is("[")) continue
        if (peek().kind !== "name") fail()
        p++
      } else if (is("[")) {
        p++
        if (is(":")) p++
        if (!is("]")) expression()
        if (is(":")) {
          p++
          if (!is("]")) expression()
        }
        expect("]")
      } else if (is("(")) {
        p++
        list(")", argument)
      } else return
    }
  }
  /** A call argument: an expression, or a closure `{ ... }` (a map when it reads as one). */
  const argument = (): void => expression()
  const primary = (): void => {
    const t = peek()
    if (t.kind === "num" || t.kind === "str") {
      p++
      return
    }
    if (t.kind === "name") {
      if (WORD_OPS.includes(t.text) && t.text !== "in") fail()
      if (t.text === "if") {
        conditional()
        return
      }
      p++
      return
    }
    if (is("#")) {
      p++
      if (peek().kind === "name" && peek().at === t.at + 1) p++
      return
    }
    if (is(".")) {
      p++
      if (peek().kind !== "name") fail()
      p++
      return
    }
    if (is("(")) {
      p++
      expression()
      expect(")")
      return
    }
    if (is("[")) {
      p++
      list("]", expression)
      return
    }
    if (is("{")) {
      p++
      const isMap =
        is("}") || ((peek().kind === "name" || peek().kind === "str" || peek().kind === "num") && is(":", 1))
      if (!isMap) {
        expression()
        expect("}")
        return
      }
      list("}", () => {
        if (is("(")) {
          p++
          expression()
          expect(")")
        } else if (peek().kind === "name" || peek().kind === "str" || peek().kind === "num") p++
        else fail()
        expect(":")
        expression()
      })
    }
    fail(t)
  }
  const conditional = (): void => {
    p++
    expression()
    expect("{")
    expression()
    expect("}")
    expect("else")
    if (is("if")) {
      conditional()
      return
    }
    expect("{")
    expression()
    expect("}")
  }
  if (peek().kind === "end") throw new ExprError("the expression is empty")
  expression()
  if (peek().kind !== "end") fail()
}

/** Why `expression` is not a well-formed validation expression, or undefined when it is. */
export const exprSyntaxError = (expression: string): string | undefined => {
  try {
    parse(tokenize(expression))
    return undefined
  } catch (e) {
    if (e instanceof ExprError) return e.message
    throw e
  }
}
