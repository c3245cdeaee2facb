/** Levenshtein distance, for "did you mean" hints. */
export const editDistance = (a: string, b: string): number => {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]!
}

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
  // Close enough to be a typo, and not a rewrite of a short word ("c" is no typo of "b").
  const name = word.slice(word.indexOf("/") + 1)
  const limit = Math.max(2, Math.floor(word.length / 3))
  return best !== undefined && bestDistance <= limit && bestDistance < name.length ? best : undefined
}
