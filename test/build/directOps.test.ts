/**
 * scripts/direct-ops.mjs: a fiber with Effect's own tracer runs each operation directly instead of
 * through the tracer's `context`. The same program, bundled with and without the plugin, must
 * print the same: successes, failures, defects, interruptions, async and generator steps, spans,
 * and a tracer of its own, whose `context` must still wrap every operation (as many calls either
 * way) and see its own context while the operation runs.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { directOps } from "../../scripts/direct-ops.mjs"
import { runBundled } from "./bundledProgram.js"

const PROGRAM = `
import { Cause, Effect, Exit, Fiber, Schedule, Tracer } from "effect"
const out = []
const say = (label, value) => out.push(label + ": " + (typeof value === "string" ? value : JSON.stringify(value)))
const work = Effect.gen(function* () {
  const a = yield* Effect.succeed(1)
  const b = yield* Effect.promise(() => Promise.resolve(2))
  const c = yield* Effect.async((resume) => { setTimeout(() => resume(Effect.succeed(3)), 1) })
  const d = yield* Effect.either(Effect.fail("nope"))
  const e = yield* Effect.exit(Effect.die(new Error("defect")))
  const f = yield* Effect.retry(Effect.suspend(() => (++tries < 3 ? Effect.fail("again") : Effect.succeed(tries))), Schedule.recurs(5))
  const g = yield* Effect.all([Effect.succeed("x"), Effect.sleep(2).pipe(Effect.as("y"))], { concurrency: 2 })
  const fiber = yield* Effect.fork(Effect.never)
  const h = yield* Fiber.interrupt(fiber)
  const i = yield* Effect.withSpan(Effect.map(Effect.currentSpan, (s) => s.name), "named")
  return { a, b, c, d: d._tag, e: Cause.pretty(e.cause).split("\\n")[0], f, g, h: Exit.isInterrupted(h), i }
})
let tries = 0
let inside = 0
let calls = 0
let current
const custom = Tracer.make({
  span: (name, parent, context, links, startTime, kind) => ({ _tag: "Span", name, spanId: "s", traceId: "t", parent, context, status: { _tag: "Started", startTime }, attributes: new Map(), links, sampled: true, kind, end() {}, attribute() {}, event() {}, addLinks() {} }),
  context: (f, fiber) => { calls++; const before = current; current = fiber; try { return f() } finally { current = before } },
})
const seen = Effect.sync(() => (current !== undefined ? inside++ : undefined))
const main = async () => {
  say("native", await Effect.runPromise(work))
  tries = 0
  say("custom", await Effect.runPromise(Effect.withTracer(Effect.zipLeft(work, Effect.repeatN(seen, 9)), custom)))
  say("custom context calls", calls > 50)
  say("custom saw its fiber", inside)
  say("failure", await Effect.runPromiseExit(Effect.fail("x")).then((e) => e._tag))
  console.log(out.join("\\n"))
  console.log("calls " + calls)
}
main()
`

const dir = mkdtempSync(join(tmpdir(), "direct-ops-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("direct ops (scripts/direct-ops.mjs)", () => {
  it("a bundle with the plugin runs as one without, and a tracer of its own still wraps every op", async () => {
    const plain = await runBundled(dir, PROGRAM, "plain", [])
    const direct = await runBundled(dir, PROGRAM, "direct", [directOps])
    expect(direct.text).toContain("this.currentTracer === nativeTracer")
    expect(plain.text).not.toContain("this.currentTracer === nativeTracer")
    expect(direct.lines).toEqual(plain.lines)
    expect(direct.lines).toContain("custom saw its fiber: 10")
    expect(direct.lines.find((l) => l.startsWith("native: "))).toContain('"a":1')
    expect(direct.lines.find((l) => l.startsWith("calls "))).toMatch(/^calls \d+$/)
  }, 60_000)
})
