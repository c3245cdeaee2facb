/**
 * Best-effort line lookup for a key path in TOML text, so that errors can say
 * `file:line`. Understands `[a.b]` headers, `key = ...` lines and dotted keys;
 * falls back to the first key or header inside the path, then to the closest
 * enclosing table header it found, or undefined.
 */
const unquote = (s: string) =>
  s
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .replace(/^'(.*)'$/, "$1")
export const splitKey = (key: string): Array<string> => {
  const parts: Array<string> = []
  const re = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/y
  let m: RegExpExecArray | null
  re.lastIndex = 0
  // biome-ignore lint/suspicious/noAssignInExpressions: a scanner loop
  while (re.lastIndex < key.length && (m = re.exec(key))) {
    parts.push(unquote(m[1]!))
    if (m[2] === "") break
  }
  return parts
}

export const locateKey = (text: string, path: ReadonlyArray<string | number>): number | undefined => {
  const keys = path.filter((p): p is string => typeof p === "string")
  const lines = text.split(/\r?\n/)
  let table: Array<string> = []
  let best: { line: number; depth: number } | undefined
  // Rank: the key itself, then the first key or header inside it (`[slugs.a]` for `slugs`),
  // then the deepest enclosing header.
  const consider = (full: Array<string>, line: number) => {
    let depth = 0
    while (depth < full.length && depth < keys.length && full[depth] === keys[depth]) depth++
    const rank = depth === full.length ? depth : depth === keys.length && depth > 0 ? depth - 0.5 : undefined
    if (rank !== undefined && (best === undefined || rank > best.depth)) best = { line, depth: rank }
  }
  lines.forEach((raw, i) => {
    const line = raw.replace(/^\s+/, "")
    const header = /^\[\[?([^\]]+)\]\]?/.exec(line)
    if (header) {
      table = splitKey(header[1]!)
      consider(table, i + 1)
      return
    }
    const assign = /^((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=/.exec(line)
    if (assign) consider([...table, ...splitKey(assign[1]!)], i + 1)
  })
  return best?.line
}
