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
