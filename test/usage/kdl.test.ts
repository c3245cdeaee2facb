import { parse as kdljsParse } from "kdljs"
import { describe, expect, it } from "vitest"
import { formatNode } from "../../src/usage/kdl/format.js"
import { type KdlDocNode, MAX_DEPTH, parseKdlDocument } from "../../src/usage/kdl/parse.js"

// The KDL 2.0 parser (src/usage/kdl/): the syntax of https://kdl.dev/spec/ (KDL 2.0.0), checked
// against kdljs 0.3.0 where kdljs is right, and on the cases it gets wrong.

interface Plain {
  name: string
  values: ReadonlyArray<unknown>
  properties: Record<string, unknown>
  children: Array<Plain>
}
const plain = (n: {
  name: string
  values: ReadonlyArray<unknown>
  properties: Readonly<Record<string, unknown>>
  children: ReadonlyArray<never> | ReadonlyArray<unknown>
}): Plain => ({
  name: n.name,
  values: n.values,
  properties: { ...n.properties },
  children: (n.children as ReadonlyArray<typeof n>).map(plain),
})

const ours = (text: string): Array<Plain> => {
  const r = parseKdlDocument(text)
  if (!r.ok) throw new Error(`line ${r.line}: ${r.message}`)
  return r.nodes.map(plain)
}
const theirs = (text: string): Array<Plain> => {
  const r = kdljsParse(text)
  if (r.errors.length > 0 || r.output === undefined) throw new Error("kdljs rejected it")
  return r.output.map(plain)
}
const errorOf = (text: string) => {
  const r = parseKdlDocument(text)
  return r.ok ? undefined : { line: r.line, message: r.message }
}

const CORPUS = [
  'node "arg" 1 2.5 -3 +4 1_000 1e3 2.5E-2 0x1F 0o17 0b101 #true #false #null key="v"',
  'a; b; c "x"',
  "a {\n  b {\n    c 1\n  }\n  d\n}",
  'bare-ident with.dots -dashed key=bare "quoted key"=1',
  'esc "tab\\there" "nl\\nx" "q\\"uote" "back\\\\slash" "sp\\s"',
  'raw #"a "quoted" \\n string"# ##"with "# inside"##',
  'ml """\n    first\n      indented\n\n    last\n    """',
  'rawml #"""\n  keep \\n escapes\n  """#',
  "/- gone 1\nkept /-2 3 /-key=4 other=5 /-{ child }",
  "/* block /* nested */ comment */ n 1 // trailing\nm \\\n  2",
  '(type)node (u8)1 key=(t)"v"',
  "dup a=1 a=2 b=3",
  "\uFEFFbom 1",
  'ws "a\\\n     b"',
]

describe("KDL 2 parsing", () => {
  it.each(CORPUS)("reads %j as kdljs does", (text) => {
    expect(ours(text)).toEqual(theirs(text))
  })

  it("reads a children block written right after the last entry (KDL 2 allows no space)", () => {
    expect(ours('cmd "a"{}\nflag "--x"{ arg "<X>"{ choices "a" } }')).toEqual([
      { name: "cmd", values: ["a"], properties: {}, children: [] },
      {
        name: "flag",
        values: ["--x"],
        properties: {},
        children: [
          {
            name: "arg",
            values: ["<X>"],
            properties: {},
            children: [{ name: "choices", values: ["a"], properties: {}, children: [] }],
          },
        ],
      },
    ])
  })

  it("reads \\u{...} escapes (kdljs 0.3.0 drops them)", () => {
    expect(ours('u "a\\u{1F600}b\\u{e9}"')[0]!.values).toEqual(["a\u{1F600}b\u00e9"])
  })

  it("gives every node its line, past comments, strings and continuations", () => {
    const r = parseKdlDocument('a\n/* x\n y */ b "m\\\n  n"\n// c\nd {\n  e """\n    z\n    """\n  f\n}\r\ng')
    if (!r.ok) throw new Error(r.message)
    const lines = (ns: ReadonlyArray<KdlDocNode>): Array<[string, number]> =>
      ns.flatMap((n) => [[n.name, n.line] as [string, number], ...lines(n.children)])
    expect(lines(r.nodes)).toEqual([
      ["a", 1],
      ["b", 3],
      ["d", 6],
      ["e", 7],
      ["f", 10],
      ["g", 12],
    ])
  })

  it.each([
    ['flag "--a" global=true', 2, 'unexpected "true" (KDL 2 writes #true, or "true" for the text)'],
    ["x null", 1, 'unexpected "null" (KDL 2 writes #null, or "null" for the text)'],
    ['x r"raw"', 1, 'unexpected "r\\"" (KDL 2 writes a raw string as #"..."#)'],
    ['x "a""b"', 1, 'unexpected "\\"" (entries are separated by spaces)'],
    ["x 1abc", 1, 'unexpected "1abc" (not a number)'],
    ['x "open', 1, "unclosed string"],
    ["x {\n y", 2, "unexpected end of input (a { block is not closed)"],
    ["x }", 1, 'unexpected "}" (no block is open)'],
    ['x "a\nb"', 1, 'newline in a "..." string (write \\n, or use a """ multi-line string)'],
    ['x """\n  a\n b\n  """', 3, "a multi-line string line is indented less than its closing quotes"],
    ['x "\\q"', 1, "invalid escape \\q in a string"],
    ["x #maybe", 1, 'unexpected "#maybe" (keywords are #true, #false, #null, #inf, #-inf, #nan)'],
  ])("rejects %j at line %i: %s", (text, line, message) => {
    expect(errorOf(text.startsWith("flag") ? `bin "x"\n${text}` : text)).toEqual({ line, message })
  })

  it("formats nodes back to KDL that reads the same", () => {
    const text = 'n "a b" 1 #true #null key="v" "odd key"=2 {\n  child "x\\ny"\n}'
    const parsed = parseKdlDocument(text)
    if (!parsed.ok) throw new Error(parsed.message)
    const again = ours(formatNode(parsed.nodes[0]!).join("\n"))
    expect(again).toEqual(ours(text))
  })
})

describe("KDL nesting depth", () => {
  const nested = (n: number) => `${"cmd a {\n".repeat(n)}${"}\n".repeat(n)}`

  it("reads blocks nested up to MAX_DEPTH", () => {
    expect(parseKdlDocument(nested(MAX_DEPTH)).ok).toBe(true)
  })

  it("refuses deeper nesting with a syntax error, not a stack overflow (found by test/fuzz)", () => {
    expect(parseKdlDocument(nested(MAX_DEPTH + 1))).toMatchObject({
      ok: false,
      message: expect.stringContaining(`nested more than ${MAX_DEPTH} deep`),
    })
    // 3000 levels overflowed the stack of the include and decode stages: a defect, not an error
    expect(parseKdlDocument(nested(3000))).toMatchObject({ ok: false, line: MAX_DEPTH + 1 })
  })
})

// Rules of KDL 2.0 the official suite (kdl-test-cases.test.ts) found this parser breaking.
describe("KDL 2 rules found by the official test suite", () => {
  it("reads bare identifiers with characters above U+FFFF (emoji, mathematical letters)", () => {
    expect(ours("😀 🦀=𝔘𝔫𝔦 a𝑥b\n𝔫𝔬𝔡𝔢 { 🎉 }")).toEqual([
      { name: "😀", values: ["a𝑥b"], properties: { "🦀": "𝔘𝔫𝔦" }, children: [] },
      {
        name: "𝔫𝔬𝔡𝔢",
        values: [],
        properties: {},
        children: [{ name: "🎉", values: [], properties: {}, children: [] }],
      },
    ])
  })

  it("refuses a lone surrogate in a bare identifier", () => {
    expect(errorOf("a\uD83D b")).toMatchObject({ line: 1, message: expect.stringContaining("U+D83D") })
    expect(errorOf("x \uDE00")).toMatchObject({ line: 1, message: expect.stringContaining("U+DE00") })
  })

  it("resolves whitespace escapes in a multi-line string before removing the indentation", () => {
    // an escaped newline joins two lines, even one indented less than the closing quotes
    expect(ours('n """\n  foo \\\nbar\n  baz\n  """')[0]!.values).toEqual(["foo bar\nbaz"])
    // a backslash may stand on the closing line: the whitespace it escapes is gone
    expect(ours('n """\n  foo \\\nbar\n  baz\n  \\   """')[0]!.values).toEqual(["foo bar\nbaz"])
    expect(ours('n """\n  foo \\\nbar\n  baz\n\\   """')[0]!.values).toEqual(["  foo bar\n  baz"])
    // escaping the last newline makes the last content line the closing line's indentation
    expect(ours('n """\n    a\n   \\\n"""')[0]!.values).toEqual([" a"])
    // the other escapes are resolved after the dedent: "\t" is not indentation
    expect(ours('n """\n  \\ta\n  \\\\\n  """')[0]!.values).toEqual(["\ta\n\\"])
  })

  it("refuses a whitespace escape that puts the closing quotes after text", () => {
    expect(errorOf('n """\n  foo\n  bar\\\n  """')).toEqual({
      line: 4,
      message: "the closing quotes of a multi-line string must be on their own line",
    })
    expect(errorOf('n """\na\n   \\\n"""')).toEqual({
      line: 2,
      message: "a multi-line string line is indented less than its closing quotes",
    })
  })

  it('refuses anything but a newline right after the opening """', () => {
    expect(errorOf('n """  \n  a\n  """')).toEqual({
      line: 1,
      message: 'unexpected " " (a multi-line string starts with """ and a newline)',
    })
  })

  it("refuses entries after a slashdashed children block; more children blocks may follow it", () => {
    expect(errorOf("node /-{\n  child\n} foo {\n  bar\n}")).toEqual({
      line: 3,
      message: 'unexpected "f" (arguments and properties come before the children block)',
    })
    expect(errorOf("node /-{ a } k=1")?.message).toContain("before the children block")
    expect(ours("node 1 /-{ a } { b } /-{ c }")).toEqual([
      {
        name: "node",
        values: [1],
        properties: {},
        children: [{ name: "b", values: [], properties: {}, children: [] }],
      },
    ])
  })

  it("refuses a slashdash before a semicolon rather than commenting out the next line", () => {
    expect(errorOf("a /-;\nb")).toEqual({ line: 1, message: 'unexpected ";"' })
    expect(errorOf("/-;\nb")).toMatchObject({ line: 1 })
  })

  const BANNED: ReadonlyArray<readonly [string, string]> = [
    ["U+202E", "\u202E"],
    ["U+200F", "\u200F"],
    ["U+2066", "\u2066"],
    ["U+0001", "\u0001"],
    ["U+001B", "\u001B"],
    ["U+007F", "\u007F"],
    ["U+FEFF", "\uFEFF"],
    ["U+D800", "\uD800"],
    ["U+DC00", "\uDC00"],
  ]
  const PLACES: ReadonlyArray<readonly [string, (c: string) => string]> = [
    ["a quoted string", (c) => `n "a${c}b"`],
    ["a raw string", (c) => `n #"a${c}b"#`],
    ["a multi-line string", (c) => `n """\n  a${c}b\n  """`],
    ["a raw multi-line string", (c) => `n #"""\n  a${c}b\n  """#`],
    ["a line comment", (c) => `n // a${c}b\nm`],
    ["a block comment", (c) => `n /* a\n ${c}b */ m`],
  ]
  describe.each(PLACES)("in %s", (_place, doc) => {
    it.each(BANNED)("refuses %s", (name, c) => {
      const error = errorOf(doc(c))
      expect(error?.message).toBe(
        `unexpected ${name} (KDL forbids this code point anywhere, even in strings and comments)`,
      )
    })

    it("still reads tabs and characters above U+FFFF there", () => {
      expect(errorOf(doc("\t😀"))).toBeUndefined()
    })
  })

  it("reads those code points written as \\u{...} escapes in a quoted string", () => {
    expect(ours('n "\\u{202e}\\u{1}\\u{feff}"')[0]!.values).toEqual(["\u202E\u0001\uFEFF"])
  })

  it("keeps a property named __proto__ as a property", () => {
    const props = ours("n __proto__=1 a=2")[0]!.properties
    expect(Object.keys(props)).toEqual(["__proto__", "a"])
    expect(Object.getOwnPropertyDescriptor(props, "__proto__")?.value).toBe(1)
  })
})
