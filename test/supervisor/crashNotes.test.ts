/**
 * Crashes and restarts are visible: the supervisor writes a line into the daemon's log when it
 * exits unasked and when it is restarted (with why), and records when a pending retry is due.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { parseLine } from "../../src/logs/structured/parse.js"
import { isSupervisorLine, supervisorLineBytes } from "../../src/logs/supervisorLine.js"
import { awaitRuntime, awaitStatus, definition, expectSleep, makeHarness, startReady } from "./helpers.js"

const WEB = "app/web"
const supervisorLines = (lines: ReadonlyArray<string>) => lines.filter(isSupervisorLine)

describe("the supervisor's lines in a daemon's log", () => {
  it.scoped(
    "retry = 2: each exit and each retry is written, with the retry's number; the pending retry is recorded with its due time",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const pid = yield* startReady(h.sup, definition("web", { retry: 2 }))
        yield* h.emit(WEB, "listening")
        const exitAt = yield* TestClock.currentTimeMillis
        yield* expectSleep(1000, h.fake.exit(pid, { code: 1 }))
        const backingOff = yield* h.sup.get(WEB)
        expect(backingOff.retryPending).toBe(true)
        expect(backingOff.nextRetry).toEqual({ retry: 1, limit: 2, dueAt: exitAt + 1000 })
        expect(h.sup.entry(backingOff, false).next_retry).toMatchObject({ retry: 1, of: 2 })
        yield* TestClock.adjust(1000)
        const second = yield* awaitRuntime(
          h.sup,
          WEB,
          (r) => r.status.type === "waiting" && r.retryCount === 1,
        )
        expect(second.nextRetry).toBeNull()
        expect(h.sup.entry(second, false).next_retry).toBeNull()
        // the second retry waits 2 s
        const again = yield* TestClock.currentTimeMillis
        yield* expectSleep(2000, h.fake.exit(second.pid!, { signal: "SIGKILL" }))
        expect((yield* h.sup.get(WEB)).nextRetry).toEqual({ retry: 2, limit: 2, dueAt: again + 2000 })
        yield* TestClock.adjust(2000)
        const third = yield* awaitRuntime(
          h.sup,
          WEB,
          (r) => r.status.type === "waiting" && r.retryCount === 2,
        )
        yield* h.fake.exit(third.pid!, { code: 1 })
        yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
        expect(yield* h.logLines(WEB)).toEqual([
          "listening",
          "[supervisor] exited with code 1",
          "[supervisor] restarting: retry 1 of 2",
          "[supervisor] killed by SIGKILL",
          "[supervisor] restarting: retry 2 of 2",
          "[supervisor] exited with code 1",
          "[supervisor] not restarting: no retry left (after 2 retries)",
        ])
      }),
  )

  it.scoped(
    "retry = true: the retry has no total (`retry 1`); retry = 0 writes only the exit; an exit 0 nothing",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const pid = yield* startReady(h.sup, definition("web", { retry: true }))
        yield* expectSleep(1000, h.fake.exit(pid, { code: 2 }))
        expect((yield* h.sup.get(WEB)).nextRetry?.limit).toBe(Infinity)
        expect(h.sup.entry(yield* h.sup.get(WEB), false).next_retry).toMatchObject({ retry: 1, of: null })
        yield* TestClock.adjust(1000)
        yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.retryCount === 1)
        expect(supervisorLines(yield* h.logLines(WEB))).toEqual([
          "[supervisor] exited with code 2",
          "[supervisor] restarting: retry 1",
        ])

        const once = yield* startReady(h.sup, definition("once"))
        yield* h.fake.exit(once, { code: 1 })
        yield* awaitStatus(h.sup, "app/once", "errored")
        expect(yield* h.logLines("app/once")).toEqual(["[supervisor] exited with code 1"])

        // an exit 0 is no crash: nothing written
        const done = yield* startReady(h.sup, definition("done", { retry: 2 }))
        yield* h.fake.exit(done, { code: 0 })
        yield* awaitStatus(h.sup, "app/done", "stopped")
        expect(yield* h.logLines("app/done")).toEqual([])
      }),
  )

  it.scoped("a restart says why (manual, watch); an asked-for stop writes nothing", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { ready_delay: 1 }))
      const restarting = yield* expectSleep(1000, Effect.fork(h.sup.restart(WEB, undefined, "cli")))
      yield* TestClock.adjust(1000)
      expect((yield* Fiber.join(restarting))._tag).toBe("Ready")
      yield* expectSleep(1000, h.sup.restartIfRunning(WEB, "watch"))
      yield* TestClock.adjust(1000)
      yield* awaitStatus(h.sup, WEB, "running")
      yield* h.sup.stop(WEB, "cli")
      expect(yield* h.logLines(WEB)).toEqual([
        "[supervisor] restarting: manual",
        "[supervisor] restarting: watch",
      ])
    }),
  )

  it.scoped("a daemon's failed start shows its own last lines, not the supervisor's", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ output: { [WEB]: ["boom"] } })
      const starting = yield* Effect.fork(h.sup.start(definition("web", { ready_delay: 5 })))
      yield* awaitStatus(h.sup, WEB, "waiting")
      const { pid } = yield* h.sup.get(WEB)
      yield* h.fake.exit(pid!, { code: 4 })
      const outcome = yield* Fiber.join(starting)
      expect(outcome).toMatchObject({ _tag: "StartFailed", output: ["boom"] })
      expect(yield* h.logLines(WEB)).toEqual(["boom", "[supervisor] exited with code 4"])
    }),
  )
})

describe("supervisor lines and structured logs", () => {
  it("are never parsed as the daemon's JSON or logfmt", () => {
    for (const format of ["json", "logfmt", "auto"] as const) {
      expect(parseLine(format, "[supervisor] exited with code 1")).toBeUndefined()
      expect(parseLine(format, "[supervisor] restarting: retry 1 of 2 level=error")).toBeUndefined()
    }
    expect(parseLine("logfmt", "level=error msg=x")).toBeDefined()
  })

  it("start on a line of their own, even after a daemon's unfinished line", () => {
    expect(supervisorLineBytes("exited with code 1", false)).toBe("[supervisor] exited with code 1\n")
    expect(supervisorLineBytes("a\nb", true)).toBe("\n[supervisor] a b\n")
  })
})
