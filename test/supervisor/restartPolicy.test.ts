import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Ref, TestClock } from "effect"
import { completedHere, endedWithSuccess } from "../../src/control/completion.js"
import { isSuccessExit, restartLimit, restartsAfter } from "../../src/supervisor/restartPolicy.js"
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
const supervisorLines = (h: Harness, id: string) =>
  h.logLines(id).pipe(Effect.map((lines) => lines.filter((l) => l.startsWith("[supervisor]"))))

describe("restart policy: the decisions", () => {
  const exit = (code: number | null, signal: string | null = null, known = true) => ({ code, signal, known })
  const keys = (restart: "on-failure" | "always" | "never", codes = [0], retry: number | boolean = 3) => ({
    restart,
    retry,
    success_exit_codes: codes,
  })

  it("an exit is a success when its code is listed; a signal or an unknown exit never is", () => {
    expect(isSuccessExit(exit(0), [0])).toBe(true)
    expect(isSuccessExit(exit(3), [0])).toBe(false)
    expect(isSuccessExit(exit(3), [0, 3])).toBe(true)
    expect(isSuccessExit(exit(143), [0, 143])).toBe(true)
    expect(isSuccessExit(exit(null, "SIGTERM"), [0, 143])).toBe(false)
    expect(isSuccessExit(exit(null, null, false), [0])).toBe(false)
  })

  it("who is restarted after which exit", () => {
    // [policy, exit code, restarted]
    const table = [
      ["on-failure", 0, false],
      ["on-failure", 1, true],
      ["always", 0, true],
      ["always", 1, true],
      ["never", 0, false],
      ["never", 1, false],
    ] as const
    for (const [policy, code, restarted] of table)
      expect([policy, code, restartsAfter(keys(policy), exit(code))]).toEqual([policy, code, restarted])
    expect(restartsAfter(keys("on-failure", [0, 3]), exit(3))).toBe(false)
    expect(restartsAfter(keys("on-failure", [0, 3]), exit(4))).toBe(true)
  })

  it("how many restarts a sequence allows: always forever, never none, on-failure as retry says", () => {
    expect(restartLimit({ restart: "always", retry: 0 })).toBe(Number.POSITIVE_INFINITY)
    expect(restartLimit({ restart: "never", retry: true })).toBe(0)
    expect(restartLimit({ restart: "on-failure", retry: 2 })).toBe(2)
    expect(restartLimit({ restart: "on-failure", retry: true })).toBe(Number.POSITIVE_INFINITY)
    expect(restartLimit({ restart: "on-failure", retry: false })).toBe(0)
  })
})

describe("restart = always", () => {
  it.scoped("an exit 0 is restarted after the backoff (1 s, then 2 s), counted, noted in the log", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const first = yield* startReady(
        h.sup,
        definition("web", {
          restart: "always",
          hooks: { on_exit: "true", on_fail: "true", on_retry: "true" },
        }),
      )
      yield* expectSleep(1000, h.fake.exit(first, { code: 0 }))
      const backingOff = yield* h.sup.get(WEB)
      expect(backingOff.status).toEqual({ type: "stopped", exit_code: 0, signal: null })
      expect(backingOff.retryPending).toBe(true)
      expect(h.sup.entry(backingOff, false).next_retry).toMatchObject({ retry: 1, of: null })
      yield* TestClock.adjust("999 millis")
      expect(yield* spawnCount(h)).toBe(1)
      yield* TestClock.adjust("1 millis")
      const second = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 1)
      yield* TestClock.adjust("3 seconds")
      yield* awaitStatus(h.sup, WEB, "running")
      // the next one waits twice as long
      yield* expectSleep(2000, h.fake.exit(second.pid!, { code: 0 }))
      yield* TestClock.adjust("1999 millis")
      expect(yield* spawnCount(h)).toBe(2)
      yield* TestClock.adjust("1 millis")
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 2)
      const requests = yield* Ref.get(h.fake.spawned)
      expect(requests.map((r) => r.env.SUPERVISOR_RETRY_COUNT)).toEqual(["0", "1", "2"])
      expect(yield* supervisorLines(h, WEB)).toEqual([
        "[supervisor] exited with code 0",
        "[supervisor] restarting: restart 1 (restart = always)",
        "[supervisor] exited with code 0",
        "[supervisor] restarting: restart 2 (restart = always)",
      ])
      // its runs never ended for good: no on_exit, but on_retry before each restart
      expect((yield* awaitHooks(h, 2)).map((x) => x.hook)).toEqual(["on_retry", "on_retry"])
    }),
  )

  it.scoped("a crash is restarted too, whatever `retry` says", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { restart: "always", retry: 0 }))
      yield* expectSleep(1000, h.fake.exit(pid, { code: 1 }))
      expect((yield* h.sup.get(WEB)).status.type).toBe("errored")
      yield* TestClock.adjust("1 second")
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 1)
    }),
  )

  it.scoped("never after a stop: stopped while running, it stays stopped", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { restart: "always" }))
      expect(yield* h.sup.stop(WEB)).toBe(true)
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopped")
    }),
  )

  it.scoped("never after a stop: stopped during the backoff, the pending restart is cancelled", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(
        h.sup,
        definition("web", {
          restart: "always",
          hooks: { on_exit: "true", on_fail: "true", on_retry: "true" },
        }),
      )
      yield* expectSleep(1000, h.fake.exit(pid, { code: 0 }))
      expect(yield* h.sup.stop(WEB)).toBe(false)
      const r = yield* h.sup.get(WEB)
      expect(r.retryPending).toBe(false)
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
      // its runs ended now: on_exit once, as a stop
      const hooks = yield* awaitHooks(h, 1)
      expect(hooks.map((x) => x.hook)).toEqual(["on_exit"])
    }),
  )

  it.scoped("a one-shot exit 0 before ready: the start hears Completed, then it is restarted", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(
        3000,
        Effect.fork(h.sup.start(definition("task", { restart: "always" }))),
      )
      const [proc] = yield* h.fake.processes
      yield* expectSleep(1000, h.fake.exit(proc!.pid, { code: 0 }))
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Completed", id: "app/task" })
      yield* TestClock.adjust("1 second")
      yield* awaitRuntime(h.sup, "app/task", (r) => r.status.type === "waiting" && r.retryCount === 1)
    }),
  )
})

describe("restart = never", () => {
  it.scoped("a crash is not retried, whatever `retry` says: errored, on_exit (fail) and on_fail", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(
        h.sup,
        definition("web", {
          restart: "never",
          retry: 3,
          hooks: { on_exit: "true", on_fail: "true", on_retry: "true" },
        }),
      )
      yield* h.fake.exit(pid, { code: 1 })
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
      const hooks = yield* awaitHooks(h, 2)
      expect(hooks.map((x) => x.hook)).toEqual(["on_exit", "on_fail"])
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )
})

describe("success_exit_codes", () => {
  it.scoped("[0, 3]: an exit 3 is a success (stopped, no retry, no on_fail); an exit 4 is retried", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web", {
        success_exit_codes: [0, 3],
        retry: 3,
        hooks: { on_fail: "true", on_exit: "true" },
      })
      const pid = yield* startReady(h.sup, def)
      yield* h.fake.exit(pid, { code: 3 })
      const r = yield* awaitStatus(h.sup, WEB, "stopped")
      expect(r.status).toEqual({ type: "stopped", exit_code: 3, signal: null })
      expect(r.retryPending).toBe(false)
      expect(endedWithSuccess(r)).toBe(true)
      expect(completedHere(r)).toBe(true)
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
      expect((yield* awaitHooks(h, 1)).map((x) => x.hook)).toEqual(["on_exit"])
      expect(yield* supervisorLines(h, WEB)).toEqual(["[supervisor] exited with code 3 (a success)"])

      const again = yield* startReady(h.sup, def)
      yield* expectSleep(1000, h.fake.exit(again, { code: 4 }))
      const failed = yield* h.sup.get(WEB)
      expect(failed.status).toMatchObject({ type: "errored", exit_code: 4 })
      expect(failed.retryPending).toBe(true)
      expect(endedWithSuccess(failed)).toBe(false)
      yield* TestClock.adjust("1 second")
      yield* awaitRuntime(h.sup, WEB, (x) => x.status.type === "waiting" && x.retryCount === 1)
    }),
  )

  it.scoped("an exit 0 is a failure when 0 is not listed", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { success_exit_codes: [2] }))
      yield* h.fake.exit(pid, { code: 0 })
      const r = yield* awaitStatus(h.sup, WEB, "errored")
      expect(r.status).toMatchObject({ exit_code: 0, message: "exited with code 0" })
    }),
  )

  it.scoped("a success code before ready completes the start (a one-shot task)", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(
        3000,
        Effect.fork(h.sup.start(definition("task", { success_exit_codes: [0, 3], retry: 2 }))),
      )
      const [proc] = yield* h.fake.processes
      yield* h.fake.exit(proc!.pid, { code: 3 })
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Completed", id: "app/task" })
      // `wait` answers at once: nothing to wait through
      const waited = yield* h.sup.wait("app/task")
      expect(waited.status).toEqual({ type: "stopped", exit_code: 3, signal: null })
    }),
  )
})
