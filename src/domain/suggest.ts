/**
 * Edit distance with adjacent transpositions (optimal string alignment), for "did you mean"
 * hints: `strat` is one edit from `start`, as a typist sees it.
 */
export const editDistance = (a: string, b: string): number => {
  let before: Array<number> = [] // row i-2
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j) // row i-1
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1)
      row.push(d)
    }
    before = prev
    prev = row
  }
  return prev[b.length]!
}

/** Close enough to be a typo, and not a rewrite of a short word ("c" is no typo of "b"). */
const plausible = (word: string, distance: number): boolean => {
  const name = word.slice(word.indexOf("/") + 1)
  return distance <= Math.max(2, Math.floor(word.length / 3)) && distance < name.length
}

/**
 * Every candidate close enough to be a plausible typo, closest first (ties in the candidates'
 * order), at most `max`; `key` is what is compared of each (a daemon's name, not its namespace).
 */
export const nearest = <A>(
  word: string,
  candidates: ReadonlyArray<A>,
  max: number,
  key: (a: A) => string,
): Array<A> =>
  candidates
    .map((c, i) => ({ c, i, d: editDistance(word.toLowerCase(), key(c).toLowerCase()) }))
    .filter(({ d }) => plausible(word, d))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, max)
    .map(({ c }) => c)

/** The closest candidate, if it is close enough to be a plausible typo. */
export const closest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase())
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  return best !== undefined && plausible(word, bestDistance) ? best : undefined
}
