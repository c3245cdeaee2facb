import { describe, expect, it } from "vitest"
import { timingLines, timingRecorder } from "../../src/cli/timings.js"
import type { StartProgress } from "../../src/domain/StartEvent.js"

const ready = (id: string) =>
  ({ outcome: { _tag: "Ready", id, pid: 1, ports: [], check: "delay" } }) as unknown as StartProgress

describe("start --timings", () => {
  it("per daemon: waited, spawn, ready; the critical chain adds up to the total", () => {
    const r = timingRecorder(1000)
    const at = (ms: number, event: StartProgress, index: number) => r.hear(event, index, 1000 + ms)
    at(
      0,
      {
        waiting: [
          { id: "a/db", what: "1s" },
          { id: "a/cache", what: "300ms" },
          {
            id: "a/api",
            what: "deps",
            dependencies: [
              { id: "a/db", condition: "ready" },
              { id: "a/cache", condition: "ready" },
            ],
          },
          { id: "a/web", what: "deps", dependencies: [{ id: "a/api", condition: "started" }] },
        ],
      },
      0,
    )
    at(
      10,
      {
        waiting: [
          { id: "a/db", what: "1s" },
          { id: "a/cache", what: "300ms" },
        ],
      },
      1,
    )
    at(320, ready("a/cache"), 2)
    at(1010, ready("a/db"), 3)
    at(1030, { waiting: [{ id: "a/api", what: "600ms" }] }, 4)
    at(1040, { waiting: [{ id: "a/web", what: "200ms" }] }, 5)
    at(1250, ready("a/web"), 6)
    at(1640, ready("a/api"), 7)
    const t = r.result()
    expect(t.total).toBe(1640)
    expect(t.daemons.map((d) => [d.id, d.waited, d.spawn, d.ready, d.at])).toEqual([
      ["a/cache", 0, 10, 310, 320],
      ["a/db", 0, 10, 1000, 1010],
      ["a/web", 1030, 10, 210, 1250],
      ["a/api", 1010, 20, 610, 1640],
    ])
    expect(t.chain.map((d) => d.id)).toEqual(["a/db", "a/api"])
    const sum = t.chain[0]!.waited + t.chain.reduce((n, d) => n + d.spawn + d.ready, 0)
    expect(sum).toBe(t.total)
    const lines = timingLines(t)
    expect(lines[0]).toMatch(/^DAEMON\s+DEPS\s+SPAWN\s+READY\s+AT$/)
    expect(lines.at(-1)).toBe("critical chain: a/db (1.01 s) → a/api (630 ms) = 1.64 s")
  })

  it("nothing settled: no lines", () => {
    expect(timingLines(timingRecorder(0).result())).toEqual([])
  })
})
