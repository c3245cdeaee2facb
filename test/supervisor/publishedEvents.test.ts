import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream, TestClock } from "effect"
import type { EventStreamItem } from "../../src/domain/SupervisorEvent.js"
import { awaitRuntime, definition, expectSleep, makeHarness, startReady } from "./helpers.js"

const WEB = "app/web"

/** An event as a short line: `StateChanged available>waiting cli`, `RetryScheduled 1/2`. */
const brief = (e: EventStreamItem): string => {
  switch (e._tag) {
    case "DaemonStateChanged":
      return `${e.id} ${e.from}>${e.to} ${e.reason}${e.exit_code === null ? "" : ` code=${e.exit_code}`}`
    case "ReadinessPassed":
      return `${e.id} ready (${e.check})`
    case "ReadinessFailed":
      return `${e.id} not ready: ${e.message}`
    case "RetryScheduled":
      return `${e.id} retry ${e.attempt}/${e.limit}`
    case "DaemonFailed":
      return `${e.id} failed for good: ${e.message}`
    default:
      return e._tag
  }
}

describe("the lifecycle's events", () => {
  it.scoped("a start, a crash, its retry and a stop, in order, with seqs 1, 2, 3, ...", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const stream = yield* h.events.open({ since: 0 })
      const first = yield* startReady(h.sup, definition("web", { retry: 2 }))
      yield* expectSleep(1000, h.fake.exit(first, { code: 3 }))
      yield* TestClock.adjust("1 second")
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 1)
      yield* h.sup.stop(WEB, "cli")
      const events = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(stream, 8)))
      expect(events.map(brief)).toEqual([
        "app/web available>waiting api",
        "app/web waiting>running ready",
        "app/web ready (delay)",
        "app/web running>errored exited code=3",
        "app/web retry 1/2",
        "app/web errored>waiting retry",
        "app/web waiting>stopping cli",
        "app/web stopping>stopped cli",
      ])
      expect(events.map((e) => ("seq" in e ? e.seq : 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      const crash = events[3]
      expect(crash).toMatchObject({ pid: first, exit_code: 3, message: "exited with code 3" })
    }),
  )

  it.scoped("a daemon that fails for good says so once: a crash with no retry left, a spawn failure", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const stream = yield* h.events.open({ since: 0 })
      const first = yield* startReady(h.sup, definition("web", { retry: 1 }))
      yield* expectSleep(1000, h.fake.exit(first, { code: 3 }))
      yield* TestClock.adjust("1 second")
      const second = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 1)
      yield* h.fake.exit(second.pid!, { code: 4 })
      const crashed = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(stream, 8)))
      expect(crashed.map(brief).slice(3)).toEqual([
        "app/web running>errored exited code=3",
        "app/web retry 1/1",
        "app/web errored>waiting retry",
        "app/web waiting>errored exited code=4",
        "app/web failed for good: app/web exited with code 4 (after 1 retry)",
      ])
      expect(crashed[7]).toMatchObject({ exit_code: 4, signal: null })
      yield* h.fake.failNext("no such shell (fake)")
      yield* h.sup.start(definition("web"))
      const failed = Chunk.toReadonlyArray(
        yield* Stream.runCollect(Stream.takeUntil(stream, (e) => e._tag === "DaemonFailed")),
      )
      expect(failed.at(-1)).toMatchObject({ _tag: "DaemonFailed", id: WEB, exit_code: null, signal: null })
      expect(failed.filter((e) => e._tag === "DaemonStateChanged").at(-1)).toMatchObject({ to: "failed" })
    }),
  )
})
