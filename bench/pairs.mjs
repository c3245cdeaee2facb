// Two targets measured in pairs of short runs taking turns (which goes first alternates, after one
// warm-up run each): on a machine whose speed drifts within seconds, runs next to each other
// share the moment, so the ratio of all their requests compares the targets, not the moments.

const round2 = (x) => Math.round(x * 100) / 100

/**
 * `run(target)` measures one short run: `{ rps, ... }`. Returns the ratio of `a`'s requests to
 * `b`'s over all pairs, each pair's ratio, and the runs.
 */
export const takingTurns = async (a, b, pairs, run) => {
  await run(a)
  await run(b)
  const runs = []
  for (let i = 0; i < pairs; i++) {
    const r = {}
    for (const which of i % 2 === 0 ? ["a", "b"] : ["b", "a"]) r[which] = await run(which === "a" ? a : b)
    runs.push(r)
  }
  const sum = (k) => runs.reduce((acc, r) => acc + r[k].rps, 0)
  return {
    ratio: round2(sum("a") / sum("b")),
    ratios: runs.map((r) => round2(r.a.rps / r.b.rps)),
    runs,
  }
}
