import { editDistance } from "../domain/suggest.js"

/** The closest of `candidates` to a misspelt `word`, when one is close enough to be a typo. */
export const suggestion = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    // a swap of two letters (`hlep`) is one edit, as a typist sees it
    const d = editDistance(word, c)
    if (d < bestDistance) {
      best = c
      bestDistance = d
    }
  }
  // One edit in a short word, two in a longer one: further than that is another word.
  return bestDistance <= (word.length <= 4 ? 1 : 2) ? best : undefined
}
