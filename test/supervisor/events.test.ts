import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Fiber, Ref, Schedule, TestClock } from "effect"
import { retrySchedule } from "../../src/supervisor/retry.js"
import {
  awaitHooks,
  awaitRuntime,
  awaitStatus,
  definition,
  expectSleep,
  type Harness,
  makeHarness,
  spawnCount,
  startReady,
} from "./helpers.js"

const WEB = "app/web"
const retryCounts = (h: Harness) =>
  Ref.get(h.fake.spawned).pipe(Effect.map((rs) => rs.map((r) => r.env.SUPERVISOR_RETRY_COUNT)))
const hookNames = (h: Harness) => h.hooks.pipe(Effect.map((hs) => hs.map((x) => x.hook)))

describe("retry schedule", () => {
  // The delays before retries 1, 2, … for `n` failures in a row. A schedule that ends also
  // gives the output of its last step (delay 0): `ended` says whether it did.
  const delays = (limit: number, n: number) =>
    Schedule.run(
      Schedule.delays(retrySchedule(limit)),
      0,
      Array.from({ length: n }, () => undefined),
    ).pipe(
      Effect.map((out) => {
        const all = Chunk.toReadonlyArray(out).map(Duration.toMillis)
        const ended = all.length > n || (all.length > 0 && all[all.length - 1] === 0)
        return { delays: ended ? all.slice(0, -1) : all, ended }
      }),
    )

  it.effect("doubles from 1 s, capped at 60 s, as many times as `retry` allows", () =>
    Effect.gen(function* () {
      expect(yield* delays(3, 10)).toEqual({ delays: [1000, 2000, 4000], ended: true })
      expect(yield* delays(0, 10)).toEqual({ delays: [], ended: true })
      expect(yield* delays(Number.POSITIVE_INFINITY, 9)).toEqual({
        delays: [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000],
        ended: false,
      })
    }),
  )
})

describe("restart, by reason", () => {
  for (const reason of ["cli", "api", "cron"] as const) {
    it.scoped(
      `restart (${reason}): a new process, the retry count back at 0; a stopped daemon is started`,
      () =>
        Effect.gen(function* () {
          const h = yield* makeHarness()
          const def = definition("web", { retry: 2 })
          const first = yield* startReady(h.sup, def)
          // a crash uses a retry: the count is 1
          yield* expectSleep(1000, h.fake.exit(first, { code: 1 }))
          yield* TestClock.adjust("1 second")
          const retried = yield* awaitRuntime(
            h.sup,
            WEB,
            (r) => r.status.type === "waiting" && r.retryCount === 1,
          )
          yield* TestClock.adjust("3 seconds")
          const restarting = yield* expectSleep(3000, Effect.fork(h.sup.restart(WEB, undefined, reason)))
          yield* TestClock.adjust("3 seconds")
          const outcome = yield* Fiber.join(restarting)
          expect(outcome).toMatchObject({ _tag: "Ready" })
          const r = yield* h.sup.get(WEB)
          expect(r.pid).not.toBe(retried.pid)
          expect(r.retryCount).toBe(0)
          expect(yield* retryCounts(h)).toEqual(["0", "1", "0"])
          expect(yield* h.fake.running).toEqual([r.pid])
          // stopped, then restarted: a plain start
          yield* h.sup.stop(WEB)
          const again = yield* expectSleep(3000, Effect.fork(h.sup.restart(WEB, undefined, reason)))
          yield* TestClock.adjust("3 seconds")
          expect((yield* Fiber.join(again))._tag).toBe("Ready")
          expect(yield* spawnCount(h)).toBe(4)
        }),
    )
  }

  it.scoped("restart if running (watch): a running daemon gets a new process and a fresh retry count", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const old = yield* startReady(h.sup, definition("web", { hooks: { on_stop: "echo stop" } }))
      expect(yield* expectSleep(3000, h.sup.restartIfRunning(WEB, "watch"))).toBe(true)
      expect((yield* Ref.get(h.fake.signals)).map((s) => s.pgid)).toEqual([old])
      const fresh = yield* h.sup.get(WEB)
      expect(fresh.status.type).toBe("waiting")
      expect(fresh.pid).not.toBe(old)
      yield* TestClock.adjust("3 seconds")
      yield* awaitStatus(h.sup, WEB, "running")
      expect(yield* h.fake.running).toEqual([fresh.pid])
      // the old process was stopped as a restart stops it: on_stop fires
      expect(yield* hookNames(h)).toContain("on_stop")
    }),
  )

  it.scoped("restart if running (watch): a stopped or disabled daemon is left alone", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.sup.disable(WEB)
      expect(yield* h.sup.restartIfRunning(WEB, "watch")).toBe(false)
      expect(yield* h.fake.running).toEqual([pid])
      yield* h.sup.enable(WEB)
      yield* h.sup.stop(WEB)
      expect(yield* h.sup.restartIfRunning(WEB, "watch")).toBe(false)
      expect(yield* spawnCount(h)).toBe(1)
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopped")
      expect((yield* Effect.flip(h.sup.restartIfRunning("app/nope", "watch")))._tag).toBe("DaemonNotFound")
    }),
  )
})

describe("kill (a limit exceeded)", () => {
  const message = "memory 600.0 MiB over memory_limit 512 MiB"

  it.scoped(
    "errored with the reason; a retry is used: respawned after the backoff with the count raised",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const def = definition("web", { retry: 1, hooks: { on_exit: "echo exit", on_fail: "echo fail" } })
        const pid = yield* startReady(h.sup, def)
        expect(yield* expectSleep(1000, h.sup.kill(WEB, "limit", message))).toBe(true)
        expect(yield* Ref.get(h.fake.signals)).toEqual([{ pgid: pid, signal: "SIGTERM" }])
        const killed = yield* h.sup.get(WEB)
        expect(killed.status).toEqual({ type: "errored", exit_code: null, signal: "SIGTERM", message })
        expect(killed.retryPending).toBe(true)
        // a retry is left: its runs have not ended for good, so no on_exit yet
        expect(yield* hookNames(h)).toEqual([])
        yield* TestClock.adjust("1 second")
        const retried = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting")
        expect(retried.retryCount).toBe(1)
        expect(yield* retryCounts(h)).toEqual(["0", "1"])
        yield* TestClock.adjust("3 seconds")
        yield* awaitStatus(h.sup, WEB, "running")
        // The second kill finds no retry left: it stays errored, and on_fail fires.
        yield* h.sup.kill(WEB, "limit", message)
        const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
        expect(r.status.message).toBe(message)
        const hooks = yield* awaitHooks(h, 2)
        expect(hooks.map((x) => x.hook)).toEqual(["on_exit", "on_fail"])
        expect(hooks[0]!.env.SUPERVISOR_EXIT_REASON).toBe("fail")
        yield* TestClock.adjust("10 minutes")
        expect(yield* spawnCount(h)).toBe(2)
        expect(yield* h.fake.running).toEqual([])
      }),
  )

  it.scoped(
    "a start waiting on a daemon killed before it was ready fails with the reason when no retry is left",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web"))))
        expect(yield* h.sup.kill(WEB, "limit", message)).toBe(true)
        expect(yield* Fiber.join(starting)).toMatchObject({
          _tag: "StartFailed",
          message: `${WEB} ${message}`,
        })
      }),
  )

  it.scoped("a kill for a process the daemon no longer runs (restarted meanwhile) is dropped", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const old = yield* startReady(h.sup, definition("web"))
      yield* expectSleep(3000, h.sup.restartIfRunning(WEB, "watch"))
      const fresh = (yield* h.sup.get(WEB)).pid as number
      expect(yield* h.sup.kill(WEB, "limit", message, old)).toBe(false)
      expect(yield* Ref.get(h.fake.signals)).toEqual([{ pgid: old, signal: "SIGTERM" }])
      expect(yield* h.fake.running).toEqual([fresh])
      // the process it runs now is killed when named
      expect(yield* h.sup.kill(WEB, "limit", message, fresh)).toBe(true)
      expect((yield* h.sup.get(WEB)).status).toMatchObject({ type: "errored", message })
    }),
  )

  it.scoped("a daemon that does not run is not killed", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.fake.exit(pid, { code: 0 })
      yield* awaitStatus(h.sup, WEB, "stopped")
      expect(yield* h.sup.kill(WEB, "limit", message)).toBe(false)
      expect(yield* Ref.get(h.fake.signals)).toEqual([])
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopped")
    }),
  )
})

describe("stop, by reason", () => {
  it.scoped("a stop asked for fires on_stop and on_exit; a shutdown's stop fires on_exit only", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const hooks = { on_stop: "echo stop", on_exit: "echo exit" }
      yield* startReady(h.sup, definition("web", { hooks }))
      expect(yield* h.sup.stop(WEB, "cli")).toBe(true)
      yield* awaitHooks(h, 2)
      expect(yield* hookNames(h)).toEqual(["on_stop", "on_exit"])
      yield* startReady(h.sup, definition("web", { hooks }))
      expect(yield* h.sup.stop(WEB, "shutdown")).toBe(true)
      yield* awaitHooks(h, 3)
      expect(yield* hookNames(h)).toEqual(["on_stop", "on_exit", "on_exit"])
    }),
  )
})
