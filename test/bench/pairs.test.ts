/**
 * bench/pairs.mjs: two targets in pairs of runs taking turns. With a machine whose speed drifts
 * from one run to the next, the ratio over the pairs is the targets' own; the order alternates,
 * and the warm-up runs count for nothing.
 */
import { describe, expect, it } from "vitest"
// @ts-expect-error: a bench script in plain JavaScript, without declarations
import { takingTurns } from "../../bench/pairs.mjs"

interface Run {
  readonly rps: number
}

describe("takingTurns (bench/pairs.mjs)", () => {
  it("compares the targets, not the moments: a drifting speed cancels out, turns alternate", async () => {
    const calls: Array<string> = []
    // the machine slows down steadily: each run 5% slower than the one before
    let speed = 1
    const own = { proxy: { rps: 900 }, nginx: { rps: 1000 } }
    const run = async (t: "proxy" | "nginx"): Promise<Run> => {
      calls.push(t)
      speed *= 0.95
      return { rps: own[t].rps * speed }
    }
    const r = await takingTurns("proxy", "nginx", 6, run)
    expect(calls).toEqual([
      "proxy",
      "nginx",
      ...[
        "proxy",
        "nginx",
        "nginx",
        "proxy",
        "proxy",
        "nginx",
        "nginx",
        "proxy",
        "proxy",
        "nginx",
        "nginx",
        "proxy",
      ],
    ])
    // one run apart, alternating: within a few percent of 0.9, where back-to-back 5 s runs of a
    // slowing machine would have been skewed by the order
    expect(r.ratio).toBeGreaterThan(0.88)
    expect(r.ratio).toBeLessThan(0.92)
    expect(r.ratios).toHaveLength(6)
    // the one going first has the faster moment: the pairs lean either way, the sum does not
    expect(r.ratios[0]).toBeCloseTo(0.9 / 0.95, 1)
    expect(r.ratios[1]).toBeCloseTo(0.9 * 0.95, 1)
    expect(r.runs).toHaveLength(6)
  })

  it("a target twice as fast in every pair is twice as fast overall", async () => {
    const r = await takingTurns("a", "b", 3, async (t: string) => ({ rps: t === "a" ? 200 : 100 }))
    expect(r.ratio).toBe(2)
    expect(r.ratios).toEqual([2, 2, 2])
  })
})
