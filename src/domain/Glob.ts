// The glob patterns of `watch` (docs/watch.md): `*`, `?`, `[abc]`, `[!abc]`, `{a,b}` within one
// path segment, `**` for any number of segments. Our own matcher: chokidar v4 has no globs, and
// node's `path.matchesGlob` is experimental (a warning on stderr) on Node 20.

/** A pattern that cannot be compiled: its text and what is wrong. */
export class GlobError extends Error {
  readonly _tag = "GlobError"
}

/** One segment of a compiled pattern: `**`, a literal name, or a regex for one name. */
export type Segment =
  | { readonly _tag: "Any" }
  | { readonly _tag: "Literal"; readonly name: string }
  | { readonly _tag: "Wild"; readonly re: RegExp }

const SPECIAL = /[*?[\]{}]/

const escapeRe = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/** The regex source of one segment's glob (no `/` in it). */
const segmentSource = (seg: string, pattern: string): string => {
  let out = ""
  let braces = 0
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] as string
    if (c === "\\" && i + 1 < seg.length) {
      out += escapeRe(seg[++i] as string)
    } else if (c === "*") {
      out += "[^/]*"
    } else if (c === "?") {
      out += "[^/]"
    } else if (c === "[") {
      const end = seg.indexOf("]", i + 2)
      if (end < 0) throw new GlobError(`"${pattern}": "[" without a closing "]"`)
      let body = seg.slice(i + 1, end)
      const negated = body.startsWith("!") || body.startsWith("^")
      if (negated) body = body.slice(1)
      out += `[${negated ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`
      i = end
    } else if (c === "{") {
      braces++
      out += "(?:"
    } else if (c === "}" && braces > 0) {
      braces--
      out += ")"
    } else if (c === "," && braces > 0) {
      out += "|"
    } else if (c === "]" || c === "}") {
      throw new GlobError(`"${pattern}": "${c}" without an opening "${c === "]" ? "[" : "{"}"`)
    } else {
      out += escapeRe(c)
    }
  }
  if (braces > 0) throw new GlobError(`"${pattern}": "{" without a closing "}"`)
  return out
}

/** The segments of a pattern (relative, `/`-separated); throws a GlobError when malformed. */
export const compileGlob = (pattern: string): ReadonlyArray<Segment> =>
  pattern
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .map((s): Segment => {
      if (s === "**") return { _tag: "Any" }
      if (!SPECIAL.test(s)) return { _tag: "Literal", name: s.replace(/\\(.)/g, "$1") }
      return { _tag: "Wild", re: new RegExp(`^${segmentSource(s, pattern)}$`) }
    })

/** Why a pattern is not a valid glob, or undefined when it is one. */
export const globProblem = (pattern: string): string | undefined => {
  if (pattern.trim() === "") return "an empty pattern matches nothing"
  try {
    compileGlob(pattern)
    return undefined
  } catch (e) {
    return e instanceof GlobError ? e.message : String(e)
  }
}

const segmentMatches = (s: Segment, name: string) =>
  s._tag === "Any" || (s._tag === "Literal" ? s.name === name : s.re.test(name))

/** Whether a relative path (its names) matches the pattern's segments from `i`, `j` on. */
const matchFrom = (
  segs: ReadonlyArray<Segment>,
  names: ReadonlyArray<string>,
  i: number,
  j: number,
): boolean => {
  if (i === segs.length) return j === names.length
  const s = segs[i] as Segment
  if (s._tag === "Any") {
    for (let k = j; k <= names.length; k++) if (matchFrom(segs, names, i + 1, k)) return true
    return false
  }
  return j < names.length && segmentMatches(s, names[j] as string) && matchFrom(segs, names, i + 1, j + 1)
}

/** Whether `relPath` (relative, `/`-separated) matches the compiled pattern. */
export const globMatches = (segs: ReadonlyArray<Segment>, relPath: string): boolean =>
  matchFrom(
    segs,
    relPath.split("/").filter((n) => n !== "" && n !== "."),
    0,
    0,
  )

/**
 * Whether something under the directory `relDir` could match: the watcher descends only into
 * such directories (`*.js` never leaves its own directory, `src/**` never leaves `src`).
 */
export const globCouldContain = (segs: ReadonlyArray<Segment>, relDir: string): boolean => {
  const names = relDir.split("/").filter((n) => n !== "" && n !== ".")
  const walk = (i: number, j: number): boolean => {
    if (j === names.length) return i < segs.length
    if (i === segs.length) return false
    const s = segs[i] as Segment
    if (s._tag === "Any") return true
    return segmentMatches(s, names[j] as string) && walk(i + 1, j + 1)
  }
  return walk(0, 0)
}

/** Whether a segment is a literal name (no glob character), the names that fix a pattern's base. */
export const isLiteral = (s: Segment): s is Extract<Segment, { _tag: "Literal" }> => s._tag === "Literal"
