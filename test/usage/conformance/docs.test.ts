import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { ARG, CMD, FLAG, TOP, type Vocabulary } from "../../../src/usage/vocabulary.js"
import { accepts } from "./helpers.js"

// docs/usage-spec.md lists the language supervisor reads; this holds the page to the code: each
// row of "The language" names exactly the words of its vocabulary (vocabulary.ts), kept ones in
// italics, and the page's example spec parses.

const page = fs.readFileSync(new URL("../../../docs/usage-spec.md", import.meta.url), "utf8")

/** The cells of the language table's row for `node`. */
const row = (node: string): Array<string> => {
  const line = page.split("\n").find((l) => l.startsWith(`| \`${node}\` |`))
  if (line === undefined) throw new Error(`no row for ${node}`)
  return line.split(" | ")
}

/** The backticked words of a cell, acted-on and kept (in `*...*`) apart. */
const words = (cell: string) => {
  const kept = [...cell.matchAll(/\*([^*]+)\*/g)].map((m) => m[1]!).join(" ")
  const plain = cell.replace(/\*[^*]+\*/g, "")
  const names = (text: string) => [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!)
  return { plain: names(plain), kept: names(kept) }
}

const expected = (vocab: Vocabulary, as: "prop" | "any") => {
  const entries = Object.entries(vocab).filter(([, s]) => as === "any" || s.as !== "child")
  return {
    plain: entries
      .filter(([, s]) => s.keep !== true)
      .map(([n]) => n)
      .sort(),
    kept: entries
      .filter(([, s]) => s.keep === true)
      .map(([n]) => n)
      .sort(),
  }
}

describe("docs/usage-spec.md, The language", () => {
  it.each([
    ["flag", FLAG, 3, "prop"],
    ["arg", ARG, 3, "prop"],
    ["cmd", CMD, 3, "prop"],
  ] as const)("the %s row names its vocabulary, kept words in italics", (node, vocab, column, as) => {
    const cell = words(row(node)[column]!)
    // Values in the cell (`read`, `required`, ...) are not properties: compare names only.
    const exp = expected(vocab, as)
    expect(cell.kept.sort()).toEqual(exp.kept)
    expect(exp.plain.filter((n) => !cell.plain.includes(n))).toEqual([])
    // And no word the code does not have (besides the values the cell lists for a property).
    const values = ["read", "write", "destructive", "required", "optional", "automatic", "preserve"]
    expect(cell.plain.filter((n) => vocab[n] === undefined && !values.includes(n))).toEqual([])
  })

  it("the top-level rows name every top-level word, kept ones in italics", () => {
    const lines = page.split("\n").filter((l) => l.includes("| top level") && !l.startsWith("| `cmd`"))
    const all = lines.flatMap((l) => [words(l.split(" | ")[0]!)])
    const plain = all.flatMap((w) => w.plain)
    const kept = all.flatMap((w) => w.kept)
    const exp = expected(TOP, "any")
    expect(exp.kept.filter((n) => !kept.includes(n))).toEqual([])
    expect(exp.plain.filter((n) => !plain.includes(n))).toEqual([])
  })

  it("its example spec parses", () => {
    const start = page.indexOf("```kdl\n") + "```kdl\n".length
    const text = page.slice(start, page.indexOf("```", start))
    expect(accepts(text.replace(/schema file="schemas\/list.json"/, 'schema "{}"')).bin).toBe("demo")
  })
})
