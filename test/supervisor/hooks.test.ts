import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import type { HookCommand } from "../../src/supervisor/hooks/HookRunner.js"
import {
  awaitHooks,
  awaitRuntime,
  awaitStatus,
  definition,
  expectSleep,
  makeHarness,
  startReady,
} from "./helpers.js"

const WEB = "app/web"
const summary = (hooks: ReadonlyArray<HookCommand>) =>
  hooks.map((c) => ({
    hook: c.hook,
    retry: c.env.SUPERVISOR_RETRY_COUNT,
    code: c.env.SUPERVISOR_EXIT_CODE,
    reason: c.env.SUPERVISOR_EXIT_REASON,
  }))

const allHooks = (prefix: string) => ({
  on_ready: `${prefix} ready`,
  on_fail: `${prefix} fail`,
  on_retry: `${prefix} retry`,
  on_stop: `${prefix} stop`,
  on_exit: `${prefix} exit`,
})

describe("hooks: when they fire", () => {
  it.scoped("on_ready fires once the daemon is ready, in its dir, with its env and the hook variables", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { hooks: { on_ready: "touch ready" } }))
      const [hook] = yield* awaitHooks(h, 1)
      expect(hook).toMatchObject({
        daemon: WEB,
        hook: "on_ready",
        run: "touch ready",
        shell: ["sh", "-c"],
        cwd: "/srv/web",
      })
      expect(hook?.env).toMatchObject({
        MODE: "test",
        PATH: "/usr/bin:/bin",
        SUPERVISOR_DAEMON_ID: WEB,
        SUPERVISOR_DAEMON_NAMESPACE: "app",
        SUPERVISOR_RETRY_COUNT: "0",
      })
      expect(hook?.env.SUPERVISOR_EXIT_CODE).toBeUndefined()
      expect(hook?.env.SUPERVISOR_EXIT_REASON).toBeUndefined()
    }),
  )

  it.scoped("a daemon without hooks runs none", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.fake.exit(pid, { code: 1 })
      yield* awaitStatus(h.sup, WEB, "errored")
      // Hooks run in forked fibers: give one fired by mistake the turns it needs to be recorded.
      for (let turn = 0; turn < 200; turn++) yield* Effect.yieldNow()
      expect(yield* h.hooks).toEqual([])
    }),
  )

  it.scoped(
    "crashes: on_retry after each backoff with the count rising; on_exit (fail) once, when no retry is left, then on_fail",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const def = definition("web", { retry: 2, hooks: allHooks("h") })
        const pid = yield* startReady(h.sup, def)
        expect(summary(yield* awaitHooks(h, 1))).toEqual([
          { hook: "on_ready", retry: "0", code: undefined, reason: undefined },
        ])
        // First crash: no on_exit (a retry is left); on_retry only when the 1 s backoff has passed.
        yield* expectSleep(1000, h.fake.exit(pid, { code: 7 }))
        yield* TestClock.adjust("999 millis")
        expect((yield* h.hooks).length).toBe(1)
        yield* TestClock.adjust("1 millis")
        expect((yield* awaitHooks(h, 2)).map((c) => c.hook)).toEqual(["on_ready", "on_retry"])
        const second = yield* awaitRuntime(h.sup, WEB, (r) => r.retryCount === 1 && r.pid !== null)
        yield* TestClock.adjust("3 seconds")
        yield* awaitStatus(h.sup, WEB, "running")
        yield* expectSleep(2000, h.fake.exit(second.pid!, { code: 7 }))
        yield* TestClock.adjust("2 seconds")
        const third = yield* awaitRuntime(h.sup, WEB, (r) => r.retryCount === 2 && r.pid !== null)
        yield* TestClock.adjust("3 seconds")
        yield* awaitStatus(h.sup, WEB, "running")
        yield* h.fake.exit(third.pid!, { code: 9 })
        const hooks = yield* awaitHooks(h, 7)
        expect(summary(hooks)).toEqual([
          { hook: "on_ready", retry: "0", code: undefined, reason: undefined },
          { hook: "on_retry", retry: "1", code: "7", reason: undefined },
          { hook: "on_ready", retry: "1", code: undefined, reason: undefined },
          { hook: "on_retry", retry: "2", code: "7", reason: undefined },
          { hook: "on_ready", retry: "2", code: undefined, reason: undefined },
          { hook: "on_exit", retry: "2", code: "9", reason: "fail" },
          { hook: "on_fail", retry: "2", code: "9", reason: undefined },
        ])
      }),
  )

  it.scoped("a one-shot task that exits 0: on_exit with reason exit and code 0, no on_fail", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.fake.exitNext({ code: 0 })
      const outcome = yield* h.sup.start(definition("task", { hooks: allHooks("t") }))
      expect(outcome._tag).toBe("Completed")
      expect(summary(yield* awaitHooks(h, 1))).toEqual([
        { hook: "on_exit", retry: "0", code: "0", reason: "exit" },
      ])
    }),
  )

  it.scoped("an explicit stop: on_stop and on_exit with reason stop and the signal's exit code", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { hooks: allHooks("s") }))
      yield* awaitHooks(h, 1)
      expect(yield* h.sup.stop(WEB)).toBe(true)
      const hooks = yield* awaitHooks(h, 3)
      expect(summary(hooks).slice(1)).toEqual([
        { hook: "on_stop", retry: "0", code: "143", reason: "stop" },
        { hook: "on_exit", retry: "0", code: "143", reason: "stop" },
      ])
    }),
  )

  it.scoped("shutdown (stopAll): only on_exit, with reason stop", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { hooks: allHooks("x") }))
      yield* awaitHooks(h, 1)
      yield* h.sup.stopAll
      expect(summary(yield* h.hooks).slice(1)).toEqual([
        { hook: "on_exit", retry: "0", code: "143", reason: "stop" },
      ])
    }),
  )

  it.scoped("a daemon that cannot be spawned: on_fail", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.fake.failNext("no such file")
      const outcome = yield* h.sup.start(definition("web", { hooks: allHooks("f") }))
      expect(outcome._tag).toBe("StartFailed")
      expect(summary(yield* awaitHooks(h, 1))).toEqual([
        { hook: "on_fail", retry: "0", code: undefined, reason: undefined },
      ])
    }),
  )

  it.scoped("every readiness check timed out: on_exit (fail) then on_fail", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web", {
        ready_output: { pattern: "never", timeout: "2s" },
        hooks: allHooks("n"),
      })
      const starting = yield* expectSleep(2000, Effect.fork(h.sup.start(def)))
      yield* TestClock.adjust("2 seconds")
      const outcome = yield* Fiber.join(starting)
      expect(outcome).toMatchObject({ _tag: "StartFailed", cli_status: 124 })
      expect(summary(yield* awaitHooks(h, 2)).map((s) => [s.hook, s.reason])).toEqual([
        ["on_exit", "fail"],
        ["on_fail", undefined],
      ])
    }),
  )
})

describe("hooks: on_output", () => {
  it.scoped("every line fires (shorthand), at most once per second, leading edge", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { hooks: { on_output: "notify" } }))
      yield* h.emit(WEB, "first")
      const [first] = yield* awaitHooks(h, 1)
      expect(first?.env.SUPERVISOR_MATCHED_LINE).toBe("first")
      yield* h.emit(WEB, "second")
      yield* TestClock.adjust("999 millis")
      yield* h.emit(WEB, "third")
      yield* TestClock.adjust("1 millis")
      yield* h.emit(WEB, "fourth")
      const hooks = yield* awaitHooks(h, 2)
      expect(hooks.map((c) => c.env.SUPERVISOR_MATCHED_LINE)).toEqual(["first", "fourth"])
    }),
  )

  it.scoped("filter is a substring; ANSI escapes are stripped before matching", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web", { hooks: { on_output: { run: "n", filter: "ERROR", debounce: "0s" } } })
      yield* startReady(h.sup, def)
      yield* h.emit(WEB, "all good")
      yield* h.emit(WEB, "\u001b[31mERROR\u001b[0m disk full")
      yield* h.emit(WEB, "ERROR again")
      const hooks = yield* awaitHooks(h, 2)
      expect(hooks.map((c) => c.env.SUPERVISOR_MATCHED_LINE)).toEqual(["ERROR disk full", "ERROR again"])
    }),
  )

  it.scoped("regex with a custom debounce window", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web", {
        hooks: { on_output: { run: "n", regex: "^req \\d+ took [5-9]\\d{2}ms", debounce: "5s" } },
      })
      yield* startReady(h.sup, def)
      yield* h.emit(WEB, "req 1 took 12ms")
      yield* h.emit(WEB, "req 2 took 700ms")
      yield* awaitHooks(h, 1)
      yield* TestClock.adjust("4 seconds")
      yield* h.emit(WEB, "req 3 took 800ms")
      yield* TestClock.adjust("1 second")
      yield* h.emit(WEB, "req 4 took 900ms")
      const hooks = yield* awaitHooks(h, 2)
      expect(hooks.map((c) => c.env.SUPERVISOR_MATCHED_LINE)).toEqual([
        "req 2 took 700ms",
        "req 4 took 900ms",
      ])
    }),
  )
})
