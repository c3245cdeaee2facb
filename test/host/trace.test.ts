import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { makeTrace, traceEnabled } from "../../src/host/trace.js"

interface Shape {
  readonly work: (n: number) => Effect.Effect<number>
  readonly ping: Effect.Effect<string>
  readonly label: string
}
class Svc extends Context.Tag("test/TraceSvc")<Svc, Shape>() {}
const live = Layer.succeed(Svc, {
  work: (n) => Effect.succeed(n * 2),
  ping: Effect.succeed("pong"),
  label: "x",
})

const waitFor = async (cond: () => boolean) => {
  const end = Date.now() + 10_000
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
}

describe("trace (SUPERVISOR_TRACE=1)", () => {
  it("is on only for SUPERVISOR_TRACE=1", () => {
    expect(traceEnabled({ SUPERVISOR_TRACE: "1" })).toBe(true)
    expect(traceEnabled({})).toBe(false)
    expect(traceEnabled({ SUPERVISOR_TRACE: "0" })).toBe(false)
  })

  it("off: the layer is the service's own, nothing is written", async () => {
    const lines: Array<string> = []
    const trace = makeTrace(false, (l) => lines.push(l))
    expect(trace.service(Svc, "Svc")(live)).toBe(live)
    await new Promise((r) => setTimeout(r, 600))
    expect(lines).toEqual([])
  })

  it("on: the members' calls keep their results and are summed in one line per burst", async () => {
    const lines: Array<string> = []
    const trace = makeTrace(true, (l) => lines.push(l))
    const program = Effect.gen(function* () {
      const svc = yield* Svc
      const a = yield* svc.work(1)
      const b = yield* svc.work(2)
      const c = yield* svc.ping
      return [a, b, c, svc.label]
    })
    const out = await Effect.runPromise(program.pipe(Effect.provide(trace.service(Svc, "Svc")(live))))
    expect(out).toEqual([2, 4, "pong", "x"])
    await waitFor(() => lines.length > 0)
    expect(lines).toHaveLength(1)
    const line = lines[0] as string
    expect(line.startsWith("trace ")).toBe(true)
    const { at, phases } = JSON.parse(line.slice(6)) as {
      at: number
      phases: Array<{ name: string; count: number; sum: number; first: number; last: number }>
    }
    expect(at).toBeGreaterThan(0)
    expect(phases.map((p) => [p.name, p.count])).toEqual([
      ["Svc.work", 2],
      ["Svc.ping", 1],
    ])
    for (const p of phases) expect(p.last).toBeGreaterThanOrEqual(p.first)
  })
})
