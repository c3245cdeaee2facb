// Format-preserving edits of TOML text: toml-eslint-parser gives every key and value with its
// source range, so a value is replaced in place, a key is inserted as one new line, and every
// other byte of the file (comments, blank lines, spacing, order) stays as it was.
import { Either } from "effect"
import { type AST, parseTOML } from "toml-eslint-parser"

/** Why an edit was not made, in words that name the place in the file. */
export type TomlEditRefusal = string

interface Entry {
  readonly node: AST.TOMLKeyValue
  /** The full key path, tables included. */
  readonly path: ReadonlyArray<string | number>
  /** How many of `path`'s parts come from the enclosing table or inline table. */
  readonly container: number
}

const keyParts = (key: AST.TOMLKey): Array<string> =>
  key.keys.map((k) => (k.type === "TOMLBare" ? k.name : k.value))

/** Every key/value pair of the document, inline tables' included, with its full path. */
const entries = (program: AST.TOMLProgram): Array<Entry> => {
  const out: Array<Entry> = []
  const visit = (node: AST.TOMLKeyValue, container: ReadonlyArray<string | number>) => {
    const path = [...container, ...keyParts(node.key)]
    out.push({ node, path, container: container.length })
    if (node.value.type === "TOMLInlineTable") for (const inner of node.value.body) visit(inner, path)
  }
  for (const item of program.body[0].body) {
    if (item.type === "TOMLKeyValue") visit(item, [])
    else for (const kv of item.body) visit(kv, item.resolvedKey)
  }
  return out
}

const startsWith = (path: ReadonlyArray<string | number>, prefix: ReadonlyArray<string | number>) =>
  prefix.length <= path.length && prefix.every((p, i) => path[i] === p)
const same = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>) =>
  a.length === b.length && startsWith(a, b)

/** A key part as TOML writes it: bare when it can be, quoted otherwise. */
const keyText = (part: string) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part))
const dotted = (parts: ReadonlyArray<string>) => parts.map(keyText).join(".")

/** A value as TOML writes it: strings as basic strings, numbers and booleans as they are. */
export const tomlValueText = (value: string | number | boolean): string =>
  typeof value === "string" ? JSON.stringify(value) : String(value)

const lineOf = (text: string, offset: number) => text.slice(0, offset).split("\n").length

/** The offset of the end of the line `offset` is on (before its newline). */
const lineEnd = (text: string, offset: number) => {
  const nl = text.indexOf("\n", offset)
  const end = nl < 0 ? text.length : nl
  return end > 0 && text[end - 1] === "\r" ? end - 1 : end
}
/** The spaces and tabs that start the line `offset` is on. */
const indentAt = (text: string, offset: number) => {
  const start = text.lastIndexOf("\n", offset - 1) + 1
  return /^[ \t]*/.exec(text.slice(start))![0]
}

/** `line` inserted as a new line after the line `offset` is on, indented like it. */
const insertLineAfter = (text: string, offset: number, line: string, eol: string) => {
  const at = lineEnd(text, offset)
  return `${text.slice(0, at)}${eol}${indentAt(text, offset)}${line}${text.slice(at)}`
}

/** Whether `text` (valid TOML) sets `path`, in any form: a table's key, a dotted key, an inline table. */
export const hasTomlKey = (text: string, path: ReadonlyArray<string>): boolean => {
  try {
    return entries(parseTOML(text)).some((e) => same(e.path, path))
  } catch {
    return false
  }
}

/**
 * Sets `path` (tables, then the key) to `value` (TOML text) in `text`: the existing value's range
 * is replaced; else the key is added to its table (a `[table]` section, or next to the dotted
 * keys that define it); else the table is appended at the end. An inline table is edited in
 * place when it has the key, and refused otherwise (it cannot grow a line).
 */
export const setTomlValue = (
  text: string,
  path: ReadonlyArray<string>,
  value: string,
): Either.Either<string, TomlEditRefusal> => {
  let program: AST.TOMLProgram
  try {
    program = parseTOML(text)
  } catch (e) {
    const line = (e as { readonly lineNumber?: number }).lineNumber
    return Either.left(`it is not valid TOML${line ? ` (line ${line})` : ""}; fix it first`)
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n"
  const all = entries(program)
  const name = dotted(path)
  const table = path.slice(0, -1)

  const exact = all.find((e) => same(e.path, path))
  if (exact !== undefined) {
    if (exact.node.value.type === "TOMLInlineTable")
      return Either.left(`${name} is a table there (line ${lineOf(text, exact.node.range[0])})`)
    const [from, to] = exact.node.value.range
    return Either.right(`${text.slice(0, from)}${value}${text.slice(to)}`)
  }
  // a prefix of the path set to a value: a table there would clash with it
  const prefix = all
    .filter((e) => e.path.length < path.length && startsWith(path, e.path))
    .sort((a, b) => b.path.length - a.path.length)[0]
  if (prefix !== undefined) {
    const at = `line ${lineOf(text, prefix.node.range[0])}`
    return Either.left(
      prefix.node.value.type === "TOMLInlineTable"
        ? `${dotted(prefix.path as Array<string>)} is an inline table (${at}): add ${path.at(-1)} to it by hand, or write it as a [${dotted(table)}] table`
        : `${dotted(prefix.path as Array<string>)} is set to a value (${at}), not a table`,
    )
  }
  const section = program.body[0].body.find(
    (t): t is AST.TOMLTable => t.type === "TOMLTable" && t.kind === "standard" && same(t.resolvedKey, table),
  )
  if (section !== undefined) {
    const last = section.body.at(-1)
    const line = `${keyText(path.at(-1)!)} = ${value}`
    if (last !== undefined) return Either.right(insertLineAfter(text, last.range[1], line, eol))
    const at = lineEnd(text, section.key.range[1])
    return Either.right(`${text.slice(0, at)}${eol}${line}${text.slice(at)}`)
  }
  // dotted keys that define the table (or one of its parents) in their container: one more there
  const near = all
    .filter((e) => e.path.length - e.container > 1 && startsWith(path, e.path.slice(0, e.container + 1)))
    .filter((e) => e.node.parent.type !== "TOMLInlineTable")
    .map((e) => ({ e, shared: e.path.findIndex((p, i) => path[i] !== p) }))
    .sort((a, b) => b.shared - a.shared || b.e.node.range[0] - a.e.node.range[0])[0]?.e
  if (near !== undefined)
    return Either.right(
      insertLineAfter(text, near.node.range[1], `${dotted(path.slice(near.container))} = ${value}`, eol),
    )
  const separator = text === "" ? "" : text.endsWith("\n") ? eol : `${eol}${eol}`
  return Either.right(`${text}${separator}[${dotted(table)}]${eol}${keyText(path.at(-1)!)} = ${value}${eol}`)
}
