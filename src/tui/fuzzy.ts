// The dashboard's `/` filter: a fuzzy match of what is typed against a daemon's qualified ID
// (`namespace/name`), as fzf-like pickers match: the typed characters in order, not necessarily
// together, ranked so that the likeliest daemon comes first.

/** Characters after which a match starts a word: `app/web`, `my-api`, `db_main`, `v1.web`. */
const BOUNDARY = new Set(["/", "-", "_", ".", " "])

const FIRST = 8
const WORD_START = 6
const CONSECUTIVE = 5
const GAP = 1

/**
 * The score of `query` against `text` (both compared lowercase), or undefined when the query's
 * characters do not all occur in `text` in order. Higher is better: matches at the start or at
 * the start of a word, characters that follow each other, and few characters skipped between
 * them. Each occurrence of the first character is tried as the start; the rest follow greedily.
 */
export const fuzzyScore = (query: string, text: string): number | undefined => {
  const q = query.toLowerCase()
  const t = text.toLowerCase()
  if (q === "") return 0
  let best: number | undefined
  for (let start = t.indexOf(q[0]!); start >= 0; start = t.indexOf(q[0]!, start + 1)) {
    let score = 0
    let at = start
    let previous = -1
    for (let i = 0; i < q.length; i++) {
      at = i === 0 ? start : t.indexOf(q[i]!, previous + 1)
      if (at < 0) break
      if (at === 0) score += FIRST
      else if (BOUNDARY.has(t[at - 1]!)) score += WORD_START
      if (previous >= 0) score += at === previous + 1 ? CONSECUTIVE : -GAP * Math.min(at - previous - 1, 5)
      previous = at
    }
    if (at < 0) break
    // of two equal matches, the shorter text is the closer one
    score -= (t.length - q.length) / 100
    if (best === undefined || score > best) best = score
  }
  return best
}

/**
 * The items whose key matches `query`, best first (ties keep their order); every item, in its
 * order, when the query is blank.
 */
export const fuzzyFilter = <A>(
  items: ReadonlyArray<A>,
  query: string,
  key: (a: A) => string,
): ReadonlyArray<A> => {
  const q = query.trim()
  if (q === "") return items
  return items
    .map((item, index) => ({ item, index, score: fuzzyScore(q, key(item)) }))
    .filter((m): m is { item: A; index: number; score: number } => m.score !== undefined)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((m) => m.item)
}
