/** The closest of `candidates` to a misspelt `word`, when one is close enough to be a typo. */
export const suggestion = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    const d = distance(word, c)
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  // One edit in a short word, two in a longer one: further than that is another word.
  return bestDistance <= (word.length <= 4 ? 1 : 2) ? best : undefined
}

/** Levenshtein distance (insertions, deletions, substitutions). */
const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length]!
}
