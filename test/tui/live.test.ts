import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Ref, Stream, TestClock } from "effect"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import type { EventStreamItem, LiveStreamItem, UsageSampled } from "../../src/domain/SupervisorEvent.js"
import { closed, type LiveSignal, liveDaemons, opened } from "../../src/tui/live.js"
import { toRows } from "../../src/tui/model.js"
import { entry } from "./fixtures.js"

const started: EventStreamItem = {
  _tag: "DaemonStateChanged",
  seq: 1,
  at: 0,
  id: "app/web",
  from: "waiting",
  to: "running",
  reason: "ready",
  pid: 4242,
  exit_code: null,
  signal: null,
  message: null,
}
const storage: EventStreamItem = {
  _tag: "StorageProblem",
  seq: 2,
  at: 0,
  area: "logs",
  file: "/tmp/x.log",
  operation: "write",
  code: "ENOSPC",
  message: "no space left on device",
}
const sample: UsageSampled = {
  _tag: "UsageSampled",
  at: 0,
  interval_ms: 5000,
  daemons: [
    { id: "app/web", pid: 4242, cpu_percent: 37.5, memory_bytes: 99, active_port: 8080, uptime_secs: 600 },
    { id: "app/api", pid: 78, cpu_percent: 50, memory_bytes: 1, active_port: null, uptime_secs: 1 },
  ],
}
const item = (i: LiveStreamItem): LiveSignal => ({ _tag: "Item", item: i })
/** The entry the stream sends after an event about the daemon. */
const entryOf = (e: ApiDaemonEntry): LiveSignal => item({ _tag: "DaemonEntry", id: e.id.qualified, entry: e })

/** The dashboard's loop over a fake stream and a fake listing: what it fetched and what it showed. */
const setup = Effect.gen(function* () {
  const signals = yield* Queue.unbounded<LiveSignal>()
  const daemons = yield* Ref.make<ReadonlyArray<ApiDaemonEntry>>([entry("app/web", "stopped")])
  const fetches = yield* Ref.make(0)
  const shown = yield* Queue.unbounded<ReadonlyArray<ApiDaemonEntry>>()
  const fiber = yield* Effect.fork(
    liveDaemons({
      signals: Stream.fromQueue(signals),
      list: Ref.update(fetches, (n) => n + 1).pipe(Effect.zipRight(Ref.get(daemons))),
      usageInterval: "5 seconds",
      onList: (e) => Queue.unsafeOffer(shown, e),
      onError: () => undefined,
    }),
  )
  /** The status cell of the next listing shown. */
  const nextStatus = Queue.take(shown).pipe(Effect.map((e) => toRows(e)[0]?.cells[1]))
  return { signals, daemons, fetches, fiber, nextStatus, shown }
})

describe("the dashboard's live listing", () => {
  it.effect("a daemon's state event fetches nothing: the entry after it patches its row at once", () =>
    Effect.gen(function* () {
      const s = yield* setup
      assert.strictEqual(yield* s.nextStatus, "stopped") // the first listing, as it starts
      yield* Queue.offer(s.signals, item(started))
      yield* Queue.offer(s.signals, entryOf(entry("app/web", "running")))
      assert.strictEqual(yield* s.nextStatus, "running") // no time passed: the entry brought it
      assert.strictEqual(yield* Ref.get(s.fetches), 1)
      yield* Fiber.interrupt(s.fiber)
    }),
  )

  it.effect("a patched entry keeps the usage figures shown while its pid is the same", () =>
    Effect.gen(function* () {
      const s = yield* setup
      yield* Ref.set(s.daemons, [entry("app/web", "running", { active_port: 8080 })])
      yield* Queue.offer(s.signals, opened)
      yield* Queue.take(s.shown)
      yield* Queue.take(s.shown)
      const bare = { cpu_percent: 0, memory_bytes: 0, active_port: null }
      yield* Queue.offer(s.signals, entryOf(entry("app/web", "running", { ...bare, uptime_secs: 80 })))
      const same = (yield* Queue.take(s.shown))[0]
      assert.deepStrictEqual(
        [same?.cpu_percent, same?.memory_bytes, same?.active_port, same?.uptime_secs],
        [1.25, 12 * 1048576, 8080, 80],
      )
      // a new run: its own figures (none yet) until the next sample
      yield* Queue.offer(s.signals, entryOf(entry("app/web", "running", { ...bare, pid: 5000 })))
      const next = (yield* Queue.take(s.shown))[0]
      assert.deepStrictEqual([next?.pid, next?.cpu_percent, next?.active_port], [5000, 0, null])
      yield* Fiber.interrupt(s.fiber)
    }),
  )

  it.effect(
    "an entry of a daemon not shown or gone, a configuration event or a gap fetches the whole list",
    () =>
      Effect.gen(function* () {
        const s = yield* setup
        yield* s.nextStatus
        yield* Ref.set(s.daemons, [entry("app/api", "running"), entry("app/web", "stopped")])
        yield* Queue.offer(s.signals, entryOf(entry("app/api", "running")))
        assert.deepStrictEqual(
          (yield* Queue.take(s.shown)).map((e) => e.id.qualified),
          ["app/api", "app/web"],
        )
        yield* Queue.offer(s.signals, item({ _tag: "DaemonEntry", id: "app/api", entry: null }))
        yield* Queue.take(s.shown)
        yield* Queue.offer(s.signals, item({ _tag: "ConfigReloaded", seq: 3, at: 0, dir: "/tmp" }))
        yield* Queue.take(s.shown)
        yield* Queue.offer(s.signals, item({ _tag: "EventsDropped", first: 4, last: 9, count: 6 }))
        yield* Queue.take(s.shown)
        assert.strictEqual(yield* Ref.get(s.fetches), 5)
        yield* Fiber.interrupt(s.fiber)
      }),
  )

  it.effect(
    "a (re)connection fetches the list; a storage problem does not; while the stream is up nothing is polled",
    () =>
      Effect.gen(function* () {
        const s = yield* setup
        yield* s.nextStatus
        yield* Queue.offer(s.signals, opened)
        yield* s.nextStatus
        assert.strictEqual(yield* Ref.get(s.fetches), 2)
        yield* Queue.offer(s.signals, item(storage))
        yield* TestClock.adjust("60 seconds")
        assert.strictEqual(yield* Ref.get(s.fetches), 2)
        yield* Fiber.interrupt(s.fiber)
      }),
  )

  it.effect("while the stream is down the list is polled every 5 s, and again once it is back", () =>
    Effect.gen(function* () {
      const s = yield* setup
      yield* s.nextStatus
      yield* Queue.offer(s.signals, opened)
      yield* s.nextStatus
      yield* Queue.offer(s.signals, closed)
      yield* TestClock.adjust("5 seconds")
      yield* s.nextStatus
      assert.strictEqual(yield* Ref.get(s.fetches), 3)
      yield* TestClock.adjust("5 seconds")
      yield* s.nextStatus
      assert.strictEqual(yield* Ref.get(s.fetches), 4)
      yield* Queue.offer(s.signals, opened)
      yield* s.nextStatus
      yield* TestClock.adjust("20 seconds")
      assert.strictEqual(yield* Ref.get(s.fetches), 5)
      yield* Fiber.interrupt(s.fiber)
    }),
  )

  it.effect("a usage sample updates the cells of the list shown, without a fetch", () =>
    Effect.gen(function* () {
      const s = yield* setup
      yield* Ref.set(s.daemons, [entry("app/web", "running"), entry("app/api", "running", { pid: 77 })])
      yield* Queue.offer(s.signals, opened)
      yield* Queue.take(s.shown)
      yield* Queue.take(s.shown)
      const fetched = yield* Ref.get(s.fetches)
      yield* Queue.offer(s.signals, item(sample))
      const shown = yield* Queue.take(s.shown)
      assert.strictEqual(yield* Ref.get(s.fetches), fetched)
      const web = shown.find((e) => e.id.qualified === "app/web")
      assert.deepStrictEqual(
        [web?.cpu_percent, web?.memory_bytes, web?.active_port, web?.uptime_secs],
        [37.5, 99, 8080, 600],
      )
      // the sample's pid is not this run's: the cells wait for the list
      const api = shown.find((e) => e.id.qualified === "app/api")
      assert.deepStrictEqual([api?.cpu_percent, api?.uptime_secs], [1.25, 75])
      yield* Fiber.interrupt(s.fiber)
    }),
  )
})
