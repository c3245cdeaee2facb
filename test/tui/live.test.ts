import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Ref, Stream, TestClock } from "effect"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import type { EventStreamItem } from "../../src/domain/SupervisorEvent.js"
import { type LiveSignal, liveDaemons, opened } from "../../src/tui/live.js"
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
const item = (i: EventStreamItem): LiveSignal => ({ _tag: "Item", item: i })

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
  return { signals, daemons, fetches, fiber, nextStatus }
})

describe("the dashboard's live listing", () => {
  it.effect(
    "a daemon's state event fetches the list again at once, without waiting for the usage refresh",
    () =>
      Effect.gen(function* () {
        const s = yield* setup
        assert.strictEqual(yield* s.nextStatus, "stopped") // the first listing, as it starts
        yield* Ref.set(s.daemons, [entry("app/web", "running")])
        yield* Queue.offer(s.signals, item(started))
        assert.strictEqual(yield* s.nextStatus, "running") // no time passed: the event brought it
        yield* Fiber.interrupt(s.fiber)
      }),
  )

  it.effect(
    "a (re)connection fetches the list; a storage problem does not; the usage refresh comes every 5 s",
    () =>
      Effect.gen(function* () {
        const s = yield* setup
        yield* s.nextStatus
        yield* Queue.offer(s.signals, opened)
        yield* s.nextStatus
        assert.strictEqual(yield* Ref.get(s.fetches), 2)
        yield* Queue.offer(s.signals, item(storage))
        yield* TestClock.adjust("4 seconds")
        assert.strictEqual(yield* Ref.get(s.fetches), 2)
        yield* TestClock.adjust("1 second")
        yield* s.nextStatus
        assert.strictEqual(yield* Ref.get(s.fetches), 3)
        yield* Fiber.interrupt(s.fiber)
      }),
  )
})
