import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Schema, Stream, TestClock } from "effect"
import { type EventBody, EventStreamItem } from "../../src/domain/SupervisorEvent.js"
import { makeEventLog } from "../../src/events/EventLog.js"

const changed = (id: string, to: "waiting" | "running" = "running"): EventBody => ({
  _tag: "DaemonStateChanged",
  id,
  from: "waiting",
  to,
  reason: "ready",
  pid: 42,
  exit_code: null,
  signal: null,
  message: null,
})

/** What a reader got: seqs of events, `dropped:first-last` for markers. */
const shape = (items: ReadonlyArray<EventStreamItem>) =>
  items.map((i) => (i._tag === "EventsDropped" ? `dropped:${i.first}-${i.last}` : i.seq))

const take = (stream: Stream.Stream<EventStreamItem>, n: number) =>
  Stream.runCollect(Stream.take(stream, n)).pipe(Effect.map(Chunk.toReadonlyArray))

describe("EventLog", () => {
  it.scoped("numbers events from 1 and stamps them with the clock", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      yield* TestClock.setTime(1_000)
      yield* log.publish(changed("app/a"))
      yield* TestClock.setTime(2_500)
      yield* log.publish(changed("app/b"))
      const got = yield* take(log.subscribe({ since: 0 }), 2)
      assert.deepStrictEqual(
        got.map((e) => (e._tag === "DaemonStateChanged" ? [e.seq, e.at, e.id] : [])),
        [
          [1, 1_000, "app/a"],
          [2, 2_500, "app/b"],
        ],
      )
      // every item encodes through the schema
      for (const e of got) Schema.encodeSync(EventStreamItem)(e)
      assert.strictEqual(yield* log.lastSeq, 2)
    }),
  )

  it.scoped("replays what came after `since`, then follows live events, without a gap or a repeat", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      for (const id of ["app/a", "app/b", "app/c"]) yield* log.publish(changed(id))
      const stream = yield* log.open({ since: 1 })
      const reader = yield* Effect.fork(take(stream, 4))
      yield* log.publish(changed("app/d"))
      yield* log.publish(changed("app/e"))
      assert.deepStrictEqual(shape(yield* Fiber.join(reader)), [2, 3, 4, 5])
    }),
  )

  it.scoped("publishers running side by side: a reader sees every seq once, in order", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog({ retain: 2000, readerBuffer: 2000 })
      const stream = yield* log.open({ since: 0 })
      const reader = yield* Effect.fork(take(stream, 1000))
      // 20 fibers of 50 publications each; the runtime switches between them at any operation
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          Effect.forEach(
            Array.from({ length: 50 }, (_, j) => j),
            (j) =>
              Effect.zipRight(
                log.publish(changed(`app/d${i}`)),
                j % 7 === 0 ? Effect.yieldNow() : Effect.void,
              ),
            { discard: true },
          ),
        { concurrency: "unbounded", discard: true },
      )
      assert.deepStrictEqual(
        shape(yield* Fiber.join(reader)),
        Array.from({ length: 1000 }, (_, i) => i + 1),
      )
      assert.strictEqual(yield* log.lastSeq, 1000)
    }),
  )

  it.scoped("without `since`, only what is published from now on", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      yield* log.publish(changed("app/a"))
      const stream = yield* log.open()
      yield* log.publish(changed("app/b"))
      assert.deepStrictEqual(shape(yield* take(stream, 1)), [2])
    }),
  )

  it.scoped("a `since` older than the retained events starts with a dropped marker", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog({ retain: 3 })
      for (let i = 0; i < 10; i++) yield* log.publish(changed(`app/d${i}`))
      assert.deepStrictEqual(shape(yield* take(log.subscribe({ since: 2 }), 4)), ["dropped:3-7", 8, 9, 10])
    }),
  )

  it.scoped("a reader that reads nothing holds only the shared buffer; the events it lost are a marker", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog({ retain: 5, readerBuffer: 4 })
      yield* log.publish(changed("app/first"))
      // subscribed at seq 1, and reads nothing while 100 more come
      const stream = yield* log.open({ since: 1 })
      for (let i = 0; i < 100; i++) yield* log.publish(changed(`app/d${i}`))
      // the buffer slid: the oldest it holds is 98; 97..101 are retained; 2..96 are lost
      assert.deepStrictEqual(shape(yield* take(stream, 6)), ["dropped:2-96", 97, 98, 99, 100, 101])
    }),
  )

  it.scoped("a reader that fell behind less than the retained events loses nothing", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog({ retain: 50, readerBuffer: 2 })
      const stream = yield* log.open({ since: 0 })
      for (let i = 0; i < 20; i++) yield* log.publish(changed(`app/d${i}`))
      assert.deepStrictEqual(
        shape(yield* take(stream, 20)),
        Array.from({ length: 20 }, (_, i) => i + 1),
      )
    }),
  )

  it.scoped("`ids` keeps those daemons' events and the supervisor's own", () =>
    Effect.gen(function* () {
      const log = yield* makeEventLog()
      yield* log.publish(changed("app/a"))
      yield* log.publish(changed("app/b"))
      yield* log.publish({ _tag: "ConfigReloaded", dir: "/srv/app" })
      yield* log.publish(changed("app/a", "waiting"))
      assert.deepStrictEqual(shape(yield* take(log.subscribe({ since: 0, ids: ["app/a"] }), 3)), [1, 3, 4])
    }),
  )
})
