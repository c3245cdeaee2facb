// The dotenv syntax of `env_file` (docs/configuration.md, "Environment files"): comments, an
// optional `export`, single quotes (literal), double quotes (escapes and expansion), unquoted
// values (a ` #` comment stripped), `${VAR}` and `${VAR:-default}` expanded.

/** A line that cannot be read: its number (1-based) and what is wrong with it. */
export interface DotenvError {
  readonly line: number
  readonly message: string
}

export type DotenvResult =
  | { readonly ok: true; readonly values: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly error: DotenvError }

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/

class Malformed extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Expands `${VAR}`, `${VAR:-default}` (unset or empty) and `${VAR-default}` (unset) in `text`;
 * a default is expanded too. Any other `$` is kept as written.
 */
const expand = (text: string, lookup: (name: string) => string | undefined, line: number): string => {
  let out = ""
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c !== "$" || text[i + 1] !== "{") {
      out += c
      i++
      continue
    }
    // find the matching brace (a default may hold `${...}` of its own)
    let depth = 0
    let end = -1
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === "{") depth++
      else if (text[j] === "}" && --depth === 0) {
        end = j
        break
      }
    }
    if (end < 0) throw new Malformed(line, `"\${" without a closing "}"`)
    const inner = text.slice(i + 2, end)
    const name = inner.match(NAME)?.[0]
    if (name === undefined)
      throw new Malformed(line, `"\${${inner}}" names no variable: write \${NAME} or \${NAME:-default}`)
    const rest = inner.slice(name.length)
    const value = lookup(name)
    if (rest === "") out += value ?? ""
    else if (rest.startsWith(":-"))
      out += value === undefined || value === "" ? expand(rest.slice(2), lookup, line) : value
    else if (rest.startsWith("-")) out += value === undefined ? expand(rest.slice(1), lookup, line) : value
    else
      throw new Malformed(
        line,
        `"\${${inner}}" is not an expansion: write \${${name}} or \${${name}:-default}`,
      )
    i = end + 1
  }
  return out
}

/** What may follow a closing quote: blanks, then nothing or a comment (the text is not echoed: it may be a secret's). */
const checkTail = (tail: string, line: number) => {
  const t = tail.trimStart()
  if (t !== "" && !t.startsWith("#"))
    throw new Malformed(
      line,
      "unexpected text after the closing quote: quote the whole value, or start a comment with #",
    )
}

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" }
/** An escaped `$` until expansion is done (no environment value can hold a NUL). */
const DOLLAR = "\u0000"

/**
 * Reads a dotenv file. `${VAR}` sees the keys set earlier in the file, then `below` (the
 * environment the file is layered on). A malformed line fails with its number.
 */
export const parseDotenv = (
  text: string,
  below: (name: string) => string | undefined = () => undefined,
): DotenvResult => {
  const values: Record<string, string> = {}
  const lookup = (name: string) => (Object.hasOwn(values, name) ? values[name] : below(name))
  const lines = text.split(/\r?\n/)
  try {
    for (let n = 0; n < lines.length; n++) {
      const number = n + 1
      let rest = lines[n]!.trim()
      if (rest === "" || rest.startsWith("#")) continue
      if (/^export\s/.test(rest)) rest = rest.slice(6).trimStart()
      const name = rest.match(NAME)?.[0]
      if (name === undefined)
        throw new Malformed(
          number,
          `expected NAME=value, where NAME is letters, digits and _ (not a digit first)`,
        )
      rest = rest.slice(name.length).trimStart()
      if (!rest.startsWith("="))
        throw new Malformed(number, `expected "=" after ${name}: write ${name}=value`)
      rest = rest.slice(1).trimStart()
      const quote = rest[0]
      if (quote === "'" || quote === '"') {
        // a quoted value may span lines: read on until its closing quote
        let body = ""
        let i = 1
        let text = rest
        let at = n
        for (;;) {
          if (i >= text.length) {
            if (at + 1 >= lines.length)
              throw new Malformed(number, `the ${quote === "'" ? "single" : "double"} quote is never closed`)
            at++
            body += "\n"
            text = lines[at]!
            i = 0
            continue
          }
          const c = text[i]!
          if (c === quote) break
          if (quote === '"' && c === "\\" && i + 1 < text.length) {
            const next = text[i + 1]!
            body += next === "$" ? DOLLAR : (ESCAPES[next] ?? `\\${next}`)
            i += 2
            continue
          }
          body += c
          i++
        }
        checkTail(text.slice(i + 1), at + 1)
        n = at
        values[name] = quote === "'" ? body : expand(body, lookup, number).replaceAll(DOLLAR, "$")
        continue
      }
      // unquoted: a comment starts at a `#` after a blank
      const comment = rest.search(/\s#/)
      const raw = (comment < 0 ? rest : rest.slice(0, comment)).trimEnd()
      values[name] = expand(raw, lookup, number)
    }
  } catch (e) {
    if (e instanceof Malformed) return { ok: false, error: { line: e.line, message: e.message } }
    throw e
  }
  return { ok: true, values }
}
