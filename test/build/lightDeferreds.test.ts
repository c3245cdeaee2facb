/**
 * scripts/light-deferreds.mjs: every Deferred is made from one shared prototype instead of an
 * object literal spreading Effect's prototype. The same program, bundled with and without the
 * plugin, must print the same: completing, awaiting, polling and interrupting a Deferred, one
 * yielded in `Effect.gen`, its type guards, equality and hash, and what runs on Deferreds inside
 * Effect (fibers awaited, Queue and PubSub takers, a memoised layer). With the plugin, Deferreds
 * share their prototype, and their own keys are their state and who blocks on them.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lightDeferreds } from "../../scripts/light-deferreds.mjs"
import { runBundled } from "./bundledProgram.js"

const PROGRAM = `
import { Context, Deferred, Effect, Equal, Exit, Fiber, Hash, Layer, Option, PubSub, Queue } from "effect"
const out = []
const say = (label, value) => out.push(label + ": " + (typeof value === "string" ? value : JSON.stringify(value)))
const a = Deferred.unsafeMake(undefined)
const b = Deferred.unsafeMake(undefined)
say("shared prototype", Object.getPrototypeOf(a) === Object.getPrototypeOf(b) && Object.getPrototypeOf(a) !== Object.prototype)
say("own keys", Object.keys(a).sort().join(","))
const program = Effect.gen(function* () {
  const d = yield* Deferred.make()
  say("is deferred", [Deferred.DeferredTypeId in d, Effect.isEffect(d), Effect.isEffect({})])
  say("equal", [Equal.equals(d, d), Equal.equals(d, yield* Deferred.make())])
  say("hash stable", Hash.hash(d) === Hash.hash(d))
  say("poll empty", Option.isNone(yield* Deferred.poll(d)))
  say("done first", yield* Deferred.succeed(d, 7))
  say("done again", yield* Deferred.succeed(d, 8))
  say("await", yield* Deferred.await(d))
  say("yielded", yield* d)
  say("piped", yield* d.pipe(Effect.map((n) => n + 1)))
  const failed = yield* Deferred.make()
  yield* Deferred.fail(failed, "boom")
  say("failed", yield* Effect.either(Deferred.await(failed)))
  const waiting = yield* Deferred.make()
  const waiter = yield* Effect.fork(Deferred.await(waiting))
  yield* Effect.yieldNow()
  yield* Deferred.interrupt(waiting)
  say("interrupted waiter", Exit.isInterrupted(yield* Fiber.await(waiter)))
  const later = yield* Deferred.make()
  const fiber = yield* Effect.fork(Effect.zipRight(Effect.yieldNow(), Deferred.succeed(later, "late")))
  say("awaited late", yield* Deferred.await(later))
  yield* Fiber.join(fiber)
  say("fiber join", yield* Fiber.join(yield* Effect.fork(Effect.succeed("joined"))))
  const q = yield* Queue.unbounded()
  const taker = yield* Effect.fork(Queue.take(q))
  yield* Effect.yieldNow()
  yield* Queue.offer(q, "taken")
  say("queue taker", yield* Fiber.join(taker))
  const bounded = yield* Queue.bounded(1)
  yield* Queue.offer(bounded, 1)
  const offerer = yield* Effect.fork(Queue.offer(bounded, 2))
  yield* Effect.yieldNow()
  say("queue offerer", [yield* Queue.take(bounded), yield* Fiber.join(offerer), yield* Queue.take(bounded)])
  const ps = yield* PubSub.unbounded()
  const got = yield* Effect.scoped(Effect.gen(function* () {
    const sub = yield* PubSub.subscribe(ps)
    const f = yield* Effect.fork(Queue.take(sub))
    yield* Effect.yieldNow()
    yield* PubSub.publish(ps, "published")
    return yield* Fiber.join(f)
  }))
  say("pubsub", got)
  const Svc = Context.GenericTag("Svc")
  let built = 0
  const layer = Layer.effect(Svc, Effect.sync(() => ++built))
  const both = Layer.merge(Layer.effect(Context.GenericTag("A"), Svc), Layer.effect(Context.GenericTag("B"), Svc))
  yield* Effect.provide(Effect.void, Layer.provide(both, layer))
  say("memoised layer built", built)
  say("race", yield* Effect.race(Effect.never, Effect.succeed("won")))
  say("all", yield* Effect.all([Effect.succeed(1), Effect.succeed(2)], { concurrency: 2 }))
})
Effect.runPromise(program).then(() => console.log(out.join("\\n")))
`

const dir = mkdtempSync(join(tmpdir(), "light-deferreds-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("light deferreds (scripts/light-deferreds.mjs)", () => {
  it("a bundle with the plugin behaves as one without, its Deferreds sharing one prototype", async () => {
    const plain = (await runBundled(dir, PROGRAM, "plain", [])).lines
    const light = (await runBundled(dir, PROGRAM, "light", [lightDeferreds])).lines
    expect(plain.slice(0, 2)).toEqual([
      "shared prototype: false",
      expect.stringContaining("own keys: _op,blockingOn,commit,pipe,state"),
    ])
    expect(light.slice(0, 2)).toEqual(["shared prototype: true", "own keys: blockingOn,state"])
    expect(light.slice(2)).toEqual(plain.slice(2))
    expect(light.length).toBeGreaterThan(20)
  }, 60_000)
})
