import { shQuote } from "./completion-table.js"

/**
 * The command of a `complete "name" run="..."` node, as each shell builds it at completion time.
 * usage renders `run` as a tera template (docs/spec/reference/complete.md); the variables it
 * documents are supported: `words` (every word of the command line, the program first, the one
 * being typed last), `CURRENT` (the index of that one) and `PREV` (the one before), as
 * `{{words[PREV]}}`, `{{words[CURRENT]}}`, `{{words[2]}}`, `{{CURRENT}}`, `{{PREV}}`. A word is
 * inserted shell-quoted. Other template syntax is passed through as written.
 */

type Part =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "word"; readonly at: "CURRENT" | "PREV" | number }
  | { readonly kind: "index"; readonly of: "CURRENT" | "PREV" }

const VARIABLE = /\{\{\s*(?:words\[\s*(CURRENT|PREV|\d+)\s*\]|(CURRENT|PREV))\s*\}\}/g

export const templateParts = (run: string): ReadonlyArray<Part> => {
  const parts: Array<Part> = []
  let last = 0
  for (const m of run.matchAll(VARIABLE)) {
    if (m.index > last) parts.push({ kind: "text", text: run.slice(last, m.index) })
    const word = m[1]
    if (word !== undefined)
      parts.push({ kind: "word", at: word === "CURRENT" || word === "PREV" ? word : Number(word) })
    else parts.push({ kind: "index", of: m[2] as "CURRENT" | "PREV" })
    last = m.index + m[0].length
  }
  if (last < run.length) parts.push({ kind: "text", text: run.slice(last) })
  return parts
}

/** bash: `COMP_WORDS` holds the words, `COMP_CWORD` the current index. */
export const bashCommand = (run: string): string =>
  templateParts(run)
    .map((p) => {
      if (p.kind === "text") return shQuote(p.text)
      const index = p.kind === "word" ? p.at : p.of
      const expr = index === "CURRENT" ? "COMP_CWORD" : index === "PREV" ? "COMP_CWORD - 1" : String(index)
      return p.kind === "index" ? `"$((${expr}))"` : `"$(printf %q "\${COMP_WORDS[${expr}]}")"`
    })
    .join("") || "''"

/** zsh: the entry function saved the whole line in `$1_line` and the cursor in `$1_at` (1-based). */
export const zshCommand = (run: string, prefix: string): string =>
  templateParts(run)
    .map((p) => {
      if (p.kind === "text") return shQuote(p.text)
      const index = p.kind === "word" ? p.at : p.of
      const expr =
        index === "CURRENT" ? `${prefix}_at` : index === "PREV" ? `${prefix}_at - 1` : String(index + 1)
      if (p.kind === "index") return `"$((${expr} - 1))"`
      return `"\${(q)${prefix}_line[${expr}]}"`
    })
    .join("") || "''"

/** fish: `$words` is the line (the word being typed last), 1-based. */
export const fishCommand = (run: string, fishQuote: (text: string) => string): string =>
  templateParts(run)
    .map((p) => {
      if (p.kind === "text") return fishQuote(p.text)
      if (p.kind === "index") return `(math (count $words) - ${p.of === "CURRENT" ? 1 : 2})`
      const at = p.at === "CURRENT" ? "-1" : p.at === "PREV" ? "-2" : String(p.at + 1)
      return `(string escape -- $words[${at}])`
    })
    .join("") || "''"
