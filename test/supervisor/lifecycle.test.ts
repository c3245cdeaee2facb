import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, Ref, Scope, TestClock } from "effect"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { StartOutcome } from "../../src/domain/StartOutcome.js"
import type { DaemonRecord, PersistentState } from "../../src/state/State.js"
import type { SupervisorShape } from "../../src/supervisor/Supervisor.js"
import { makeFakeProcessService } from "../../src/testing/FakeProcessService.js"
import {
  awaitRuntime,
  awaitSleepUntil,
  awaitStatus,
  BASE_ENV,
  definition,
  encodeDefinition,
  expectSleep,
  expectSleepUntil,
  type Harness,
  makeGate,
  makeHarness,
  spawnCount,
  startReady,
} from "./helpers.js"

const WEB = "app/web"

const signalsSent = (h: Harness) => Ref.get(h.fake.signals)
const statusOf = (h: Harness, id: string) => h.sup.get(id).pipe(Effect.map((r) => r.status))
const notDone = <A, E>(f: Fiber.Fiber<A, E>) => Fiber.poll(f).pipe(Effect.map(Option.isNone))
const tags = (outcomes: ReadonlyArray<StartOutcome>) => outcomes.map((o) => o._tag).sort()

describe("lifecycle: start and readiness", () => {
  it.scoped("available → waiting → running once ready_delay (default 3 s) has passed", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const entered = yield* Deferred.make<void>()
      const h = yield* makeHarness({
        beforePrepare: () => Deferred.succeed(entered, undefined).pipe(Effect.zipRight(gate.wait)),
      })
      // Unknown to the supervisor before its first start (listings show it as `available`).
      expect((yield* Effect.flip(h.sup.get(WEB)))._tag).toBe("DaemonNotFound")

      const starting = yield* Effect.fork(h.sup.start(definition("web")))
      yield* Deferred.await(entered)
      // Registered, not spawned yet.
      const before = yield* h.sup.get(WEB)
      expect(before.status).toEqual({ type: "available" })
      expect(before.pid).toBeNull()
      expect(yield* spawnCount(h)).toBe(0)

      yield* expectSleep(3000, gate.open)
      const [proc] = yield* h.fake.processes
      const waiting = yield* h.sup.get(WEB)
      expect(waiting.status).toEqual({ type: "waiting" })
      expect(waiting.pid).toBe(proc!.pid)
      expect(waiting.startTime).toBe(proc!.startTime)

      yield* TestClock.adjust("2900 millis")
      expect(yield* statusOf(h, WEB)).toEqual({ type: "waiting" })
      expect(yield* notDone(starting)).toBe(true)

      yield* TestClock.adjust("100 millis")
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Ready", id: WEB, pid: proc!.pid })
      expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running"])
      expect(h.stateOnDisk().daemons[WEB]).toMatchObject({
        id: WEB,
        status: { type: "running" },
        pid: proc!.pid,
        start_time: proc!.startTime,
        retry_count: 0,
        adhoc: false,
      })
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )

  it.scoped("spawns `sh -c <run>` in the daemon's dir with the supervisor's, the daemon's and our env", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ settings: { general: { shell: "bash -lc" } } })
      yield* startReady(h.sup, definition("web"))
      expect(yield* Ref.get(h.fake.spawned)).toEqual([
        {
          id: WEB,
          command: "./web --serve",
          shell: ["bash", "-lc"],
          cwd: "/srv/web",
          env: {
            ...BASE_ENV,
            MODE: "test",
            SUPERVISOR_DAEMON_ID: WEB,
            SUPERVISOR_DAEMON_NAMESPACE: "app",
            SUPERVISOR_RETRY_COUNT: "0",
          },
          outputFile: nodePath.join(h.dir, "logs", "app--web.out"),
        },
      ])
    }),
  )

  it.scoped("ready_delay from the config replaces the default", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(
        500,
        Effect.fork(h.sup.start(definition("web", { ready_delay: 0.5 }))),
      )
      yield* TestClock.adjust("499 millis")
      expect(yield* notDone(starting)).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(starting))._tag).toBe("Ready")
      expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
    }),
  )

  it.scoped("waiting → stopped when it exits 0 before it is ready: Completed, not retried", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("task", { retry: 3 }))))
      const [proc] = yield* h.fake.processes
      yield* TestClock.adjust("1 second")
      yield* h.fake.exit(proc!.pid, { code: 0 })
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Completed", id: "app/task" })
      const r = yield* h.sup.get("app/task")
      expect(r.status).toEqual({ type: "stopped", exit_code: 0, signal: null })
      expect(r.pid).toBeNull()
      expect(yield* h.persisted("app/task")).toEqual(["waiting", "stopped"])
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )

  it.scoped("waiting → errored when it exits non-zero before it is ready: StartFailed with its output", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ output: { [WEB]: ["booting", "Error: EADDRINUSE :3000"] } })
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web"))))
      const [proc] = yield* h.fake.processes
      yield* h.fake.exit(proc!.pid, { code: 2 })
      expect(yield* Fiber.join(starting)).toEqual({
        _tag: "StartFailed",
        id: WEB,
        message: "app/web exited with code 2",
        exit_code: 2,
        signal: null,
        output: ["booting", "Error: EADDRINUSE :3000"],
        cli_status: 1,
      })
      const r = yield* h.sup.get(WEB)
      expect(r.status).toEqual({ type: "errored", exit_code: 2, signal: null, message: "exited with code 2" })
      expect(r.pid).toBeNull()
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "errored"])
    }),
  )

  it.scoped("waiting → errored when a signal kills it before it is ready", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web"))))
      const [proc] = yield* h.fake.processes
      yield* h.fake.exit(proc!.pid, { signal: "SIGSEGV" })
      expect(yield* Fiber.join(starting)).toMatchObject({
        _tag: "StartFailed",
        message: "app/web was killed by SIGSEGV",
        exit_code: null,
        signal: "SIGSEGV",
      })
      expect(yield* statusOf(h, WEB)).toEqual({
        type: "errored",
        exit_code: null,
        signal: "SIGSEGV",
        message: "killed by SIGSEGV",
      })
    }),
  )

  it.scoped("spawn failure → failed with the message; not retried; a later start can succeed", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web", { retry: 3 })
      yield* h.fake.failNext("sh: not found")
      const message = "cannot start daemon app/web: sh: not found"
      expect(yield* h.sup.start(def)).toEqual({
        _tag: "StartFailed",
        id: WEB,
        message,
        exit_code: null,
        signal: null,
        output: [],
        cli_status: 1,
      })
      const r = yield* h.sup.get(WEB)
      expect(r.status).toEqual({ type: "failed", message })
      expect(r.pid).toBeNull()
      expect(yield* h.persisted(WEB)).toEqual(["failed"])
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
      expect(yield* h.fake.running).toEqual([])

      // failed → waiting → running
      const pid = yield* startReady(h.sup, def)
      expect(yield* h.fake.running).toEqual([pid])
      expect(yield* h.persisted(WEB)).toEqual(["failed", "waiting", "running"])
    }),
  )
})

describe("lifecycle: exits while running", () => {
  it.scoped("running → errored when it crashes (exit code)", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.fake.exit(pid, { code: 1 })
      const r = yield* awaitStatus(h.sup, WEB, "errored")
      expect(r.status).toEqual({ type: "errored", exit_code: 1, signal: null, message: "exited with code 1" })
      expect(r.pid).toBeNull()
      expect(r.handle).toBeNull()
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "errored"])
      expect(h.stateOnDisk().daemons[WEB]).toMatchObject({
        status: { type: "errored", exit_code: 1 },
        pid: null,
      })
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )

  it.scoped("running → errored when a signal kills it", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* h.fake.exit(pid, { signal: "SIGKILL" })
      const r = yield* awaitStatus(h.sup, WEB, "errored")
      expect(r.status).toEqual({
        type: "errored",
        exit_code: null,
        signal: "SIGKILL",
        message: "killed by SIGKILL",
      })
    }),
  )

  it.scoped("running → stopped on a clean exit, even with retries configured", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { retry: 3 }))
      yield* h.fake.exit(pid, { code: 0 })
      const r = yield* awaitStatus(h.sup, WEB, "stopped")
      expect(r.status).toEqual({ type: "stopped", exit_code: 0, signal: null })
      expect(r.pid).toBeNull()
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "stopped"])
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )
})

describe("lifecycle: stop", () => {
  it.scoped("running → stopping → stopped: the stop signal goes to the process group", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      expect(yield* h.sup.stop(WEB)).toBe(true)
      expect(yield* signalsSent(h)).toEqual([{ pgid: pid, signal: "SIGTERM" }])
      const r = yield* h.sup.get(WEB)
      expect(r.status).toEqual({ type: "stopped", exit_code: null, signal: "SIGTERM" })
      expect(r.pid).toBeNull()
      expect(yield* h.fake.running).toEqual([])
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "stopping", "stopped"])
      // Stopping again: nothing to do.
      expect(yield* h.sup.stop(WEB)).toBe(false)
      expect(yield* signalsSent(h)).toHaveLength(1)
      expect((yield* Effect.flip(h.sup.stop("app/nope")))._tag).toBe("DaemonNotFound")
    }),
  )

  it.scoped("stop_signal is honoured", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { stop_signal: "INT" }))
      expect(yield* h.sup.stop(WEB)).toBe(true)
      expect(yield* signalsSent(h)).toEqual([{ pgid: pid, signal: "SIGINT" }])
      expect(yield* statusOf(h, WEB)).toEqual({ type: "stopped", exit_code: null, signal: "SIGINT" })
    }),
  )

  const stubborn = (
    settings: Record<string, unknown> | undefined,
    config: Record<string, unknown>,
    timeoutMillis: number,
  ) =>
    Effect.gen(function* () {
      const h = yield* makeHarness(settings ? { settings } : {})
      yield* h.fake.ignoreNext("SIGTERM")
      const pid = yield* startReady(h.sup, definition("web", config))
      const stopping = yield* expectSleep(timeoutMillis, Effect.fork(h.sup.stop(WEB)))
      // Observed through `changes` and `get`: stopping while the process ignores SIGTERM.
      expect((yield* awaitStatus(h.sup, WEB, "stopping")).pid).toBe(pid)
      expect(yield* statusOf(h, WEB)).toEqual({ type: "stopping" })
      expect(yield* h.fake.running).toEqual([pid])
      yield* TestClock.adjust(timeoutMillis - 1)
      expect(yield* notDone(stopping)).toBe(true)
      expect(yield* signalsSent(h)).toEqual([{ pgid: pid, signal: "SIGTERM" }])
      yield* TestClock.adjust(1)
      expect(yield* Fiber.join(stopping)).toBe(true)
      expect(yield* signalsSent(h)).toEqual([
        { pgid: pid, signal: "SIGTERM" },
        { pgid: pid, signal: "SIGKILL" },
      ])
      expect(yield* statusOf(h, WEB)).toEqual({ type: "stopped", exit_code: null, signal: "SIGKILL" })
      expect(yield* h.fake.running).toEqual([])
    })

  it.scoped("a process that ignores the signal is SIGKILLed after the default stop_timeout (5 s)", () =>
    stubborn(undefined, {}, 5000),
  )
  it.scoped("… after settings.supervisor.stop_timeout", () =>
    stubborn({ supervisor: { stop_timeout: "2s" } }, {}, 2000),
  )
  it.scoped("… after the daemon's stop_signal.timeout, which overrides the setting", () =>
    stubborn(
      { supervisor: { stop_timeout: "2s" } },
      { stop_signal: { signal: "TERM", timeout: "10s" } },
      10_000,
    ),
  )

  it.scoped("stop while waiting: the start reports Interrupted", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web"))))
      const [proc] = yield* h.fake.processes
      expect(yield* h.sup.stop(WEB)).toBe(true)
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Interrupted", id: WEB })
      expect(yield* signalsSent(h)).toEqual([{ pgid: proc!.pid, signal: "SIGTERM" }])
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "stopping", "stopped"])
    }),
  )
})

describe("lifecycle: retries and backoff", () => {
  it.scoped(
    "retry = 3: four spawns, 1 s / 2 s / 4 s apart, SUPERVISOR_RETRY_COUNT rising, then errored",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const id = "app/flaky"
        const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("flaky", { retry: 3 }))))
        const delays = [1000, 2000, 4000]
        const spawnedAt: Array<number> = []
        for (let attempt = 0; attempt <= 3; attempt++) {
          const r = yield* awaitRuntime(
            h.sup,
            id,
            (r) => r.status.type === "waiting" && r.retryCount === attempt,
          )
          spawnedAt.push(yield* TestClock.currentTimeMillis)
          if (attempt === 3) {
            yield* h.fake.exit(r.pid!, { code: 1 })
            break
          }
          const delay = delays[attempt]!
          yield* expectSleep(delay, h.fake.exit(r.pid!, { code: 1 }))
          const backingOff = yield* h.sup.get(id)
          expect(backingOff.status).toEqual({
            type: "errored",
            exit_code: 1,
            signal: null,
            message: "exited with code 1",
          })
          yield* TestClock.adjust(delay - 1)
          expect(yield* spawnCount(h)).toBe(attempt + 1)
          expect(yield* notDone(starting)).toBe(true)
          yield* TestClock.adjust(1)
        }
        expect(yield* Fiber.join(starting)).toMatchObject({
          _tag: "StartFailed",
          message: "app/flaky exited with code 1 (after 3 retries)",
          exit_code: 1,
        })
        expect(spawnedAt).toEqual([0, 1000, 3000, 7000])
        const requests = yield* Ref.get(h.fake.spawned)
        expect(requests.map((r) => r.env.SUPERVISOR_RETRY_COUNT)).toEqual(["0", "1", "2", "3"])
        const r = yield* h.sup.get(id)
        expect(r.status.type).toBe("errored")
        expect(r.retryCount).toBe(3)
        expect(h.sup.entry(r, false).retry_count).toBe(3)
        yield* TestClock.adjust("10 minutes")
        expect(yield* spawnCount(h)).toBe(4)
        expect(yield* h.fake.running).toEqual([])
      }),
  )

  it.scoped("a crash while running is retried: running → errored → (1 s) → waiting → running", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { retry: 1 }))
      yield* expectSleep(1000, h.fake.exit(pid, { code: 3 }))
      expect(yield* statusOf(h, WEB)).toMatchObject({ type: "errored", exit_code: 3 })
      yield* TestClock.adjust("999 millis")
      expect(yield* spawnCount(h)).toBe(1)
      const now = yield* TestClock.currentTimeMillis
      yield* expectSleepUntil(now + 1 + 3000, TestClock.adjust("1 millis"))
      const again = yield* h.sup.get(WEB)
      expect(again.status.type).toBe("waiting")
      expect(again.retryCount).toBe(1)
      yield* TestClock.adjust("3 seconds")
      expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "errored", "waiting", "running"])
      // The one retry is used up: the next crash leaves it errored.
      yield* h.fake.exit(again.pid!, { code: 3 })
      yield* awaitStatus(h.sup, WEB, "errored")
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(2)
    }),
  )

  it.scoped("retry = true keeps going; the delay doubles up to 60 s", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      for (let i = 0; i < 10; i++) yield* h.fake.exitNext({ code: 1 })
      const delays = [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]
      const starting = yield* expectSleep(
        delays[0]!,
        Effect.fork(h.sup.start(definition("web", { retry: true }))),
      )
      let now = 0
      for (let i = 0; i < delays.length - 1; i++) {
        const delay = delays[i]!
        now += delay
        yield* TestClock.adjust(delay - 1)
        expect(yield* spawnCount(h)).toBe(i + 1)
        yield* expectSleepUntil(now + delays[i + 1]!, TestClock.adjust(1))
        expect(yield* spawnCount(h)).toBe(i + 2)
      }
      const requests = yield* Ref.get(h.fake.spawned)
      expect(requests.map((r) => r.env.SUPERVISOR_RETRY_COUNT)).toEqual([
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
      ])
      expect(yield* statusOf(h, WEB)).toMatchObject({ type: "errored", exit_code: 1 })
      expect(yield* notDone(starting)).toBe(true)
      // Stopped while backing off: stopped, and the pending start reports it.
      expect(yield* h.sup.stop(WEB)).toBe(false)
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Interrupted", id: WEB })
    }),
  )

  it.scoped("errored while backing off, then stop → stopped; no further spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web", { retry: 3 }))
      yield* expectSleep(1000, h.fake.exit(pid, { code: 1 }))
      expect((yield* statusOf(h, WEB)).type).toBe("errored")
      // Not running (no process), so stop reports false, but the daemon is settled as stopped.
      expect(yield* h.sup.stop(WEB)).toBe(false)
      const r = yield* h.sup.get(WEB)
      expect(r.status).toEqual({ type: "stopped", message: "stopped" })
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "errored", "stopped"])
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(1)
      expect(yield* signalsSent(h)).toEqual([])
    }),
  )
})

describe("lifecycle: start, force, restart, enable, disable", () => {
  it.scoped("start of a running daemon → AlreadyRunning, no new spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      const pid = yield* startReady(h.sup, def)
      expect(yield* h.sup.start(def)).toEqual({ _tag: "AlreadyRunning", id: WEB, pid })
      expect(yield* spawnCount(h)).toBe(1)
      expect(yield* signalsSent(h)).toEqual([])
    }),
  )

  it.scoped("start of a waiting daemon → AlreadyRunning, no new spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      const first = yield* expectSleep(3000, Effect.fork(h.sup.start(def)))
      const [proc] = yield* h.fake.processes
      expect(yield* h.sup.start(def)).toEqual({ _tag: "AlreadyRunning", id: WEB, pid: proc!.pid })
      yield* TestClock.adjust("3 seconds")
      expect((yield* Fiber.join(first))._tag).toBe("Ready")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )

  it.scoped("force: stops the running process, then exactly one new spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      const old = yield* startReady(h.sup, def)
      const restarting = yield* expectSleep(3000, Effect.fork(h.sup.start(def, { force: true })))
      expect(yield* signalsSent(h)).toEqual([{ pgid: old, signal: "SIGTERM" }])
      expect(yield* spawnCount(h)).toBe(2)
      yield* TestClock.adjust("3 seconds")
      const outcome = yield* Fiber.join(restarting)
      expect(outcome._tag).toBe("Ready")
      const fresh = (outcome as { pid: number }).pid
      expect(fresh).not.toBe(old)
      expect(yield* h.fake.running).toEqual([fresh])
      expect(yield* h.persisted(WEB)).toEqual([
        "waiting",
        "running",
        "stopping",
        "stopped",
        "waiting",
        "running",
      ])
    }),
  )

  it.scoped("restart = force start; of a stopped daemon it is a plain start", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const old = yield* startReady(h.sup, definition("web"))
      const restarting = yield* expectSleep(3000, Effect.fork(h.sup.restart(WEB)))
      yield* TestClock.adjust("3 seconds")
      const outcome = yield* Fiber.join(restarting)
      expect(outcome._tag).toBe("Ready")
      expect(yield* h.fake.running).toEqual([(outcome as { pid: number }).pid])
      expect(yield* signalsSent(h)).toEqual([{ pgid: old, signal: "SIGTERM" }])

      yield* h.sup.stop(WEB)
      const again = yield* expectSleep(3000, Effect.fork(h.sup.restart(WEB)))
      yield* TestClock.adjust("3 seconds")
      expect((yield* Fiber.join(again))._tag).toBe("Ready")
      expect(yield* spawnCount(h)).toBe(3)
      expect(yield* signalsSent(h)).toHaveLength(2)
      expect((yield* Effect.flip(h.sup.restart("app/nope")))._tag).toBe("DaemonNotFound")
    }),
  )

  it.scoped(
    "settings.supervisor.restart_delay: the new process is spawned that long after the old one is gone",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness({ settings: { supervisor: { restart_delay: "2s" } } })
        yield* startReady(h.sup, definition("web"))
        // stopped (the fake exits on SIGTERM), then a pause of 2 s before the spawn
        const restarting = yield* expectSleep(2000, Effect.fork(h.sup.restart(WEB)))
        yield* TestClock.adjust("1999 millis")
        expect(yield* spawnCount(h)).toBe(1)
        yield* expectSleep(3001, TestClock.adjust("1 millis"))
        expect(yield* spawnCount(h)).toBe(2)
        yield* TestClock.adjust("3 seconds")
        expect((yield* Fiber.join(restarting))._tag).toBe("Ready")
      }),
  )

  it.scoped(
    "force while still waiting: the superseded start reports the new start's outcome, one process remains",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const def = definition("web")
        const first = yield* expectSleep(3000, Effect.fork(h.sup.start(def)))
        const second = yield* expectSleep(3000, Effect.fork(h.sup.start(def, { force: true })))
        yield* TestClock.adjust("3 seconds")
        const outcome = yield* Fiber.join(second)
        expect(outcome._tag).toBe("Ready")
        expect(yield* Fiber.join(first)).toEqual(outcome)
        expect(yield* h.fake.running).toEqual([(outcome as { pid: number }).pid])
        expect(yield* h.maxLive(WEB)).toBe(1)
      }),
  )

  it.scoped("a start stopped while waiting reports Interrupted", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const first = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web"))))
      expect(yield* h.sup.stop(WEB)).toBe(true)
      expect(yield* Fiber.join(first)).toEqual({ _tag: "Interrupted", id: WEB })
      expect(yield* h.fake.running).toEqual([])
    }),
  )

  it.scoped("disabled → Disabled and no spawn; enable again → starts", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      expect(yield* h.sup.disable(WEB)).toBe(true)
      expect(yield* h.sup.disable(WEB)).toBe(true)
      expect(yield* h.sup.isDisabled(WEB)).toBe(true)
      expect(yield* h.sup.disabledIds).toEqual([WEB])
      expect(h.stateOnDisk().disabled).toEqual([WEB])
      expect(yield* h.sup.start(def)).toEqual({ _tag: "Disabled", id: WEB })
      expect(yield* h.sup.start(def, { force: true })).toEqual({ _tag: "Disabled", id: WEB })
      expect(yield* spawnCount(h)).toBe(0)

      expect(yield* h.sup.enable(WEB)).toBe(true)
      expect(yield* h.sup.isDisabled(WEB)).toBe(false)
      expect(h.stateOnDisk().disabled).toEqual([])
      const pid = yield* startReady(h.sup, def)
      expect(yield* h.fake.running).toEqual([pid])
    }),
  )

  it.scoped("disabling a running daemon leaves it running until stopped; listings then say disabled", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      const pid = yield* startReady(h.sup, def)
      yield* h.sup.disable(WEB)
      expect(yield* h.fake.running).toEqual([pid])
      const running = h.sup.entry(yield* h.sup.get(WEB), true)
      expect(running).toMatchObject({ status: { type: "running" }, enabled: false, pid })
      // A start is a no-op (it runs); a restart is refused (disabled); the process is left alone.
      expect(yield* h.sup.start(def)).toEqual({ _tag: "AlreadyRunning", id: WEB, pid })
      expect(yield* h.sup.restart(WEB)).toEqual({ _tag: "Disabled", id: WEB })
      expect(yield* h.fake.running).toEqual([pid])
      expect(yield* h.sup.stop(WEB)).toBe(true)
      const stopped = h.sup.entry(yield* h.sup.get(WEB), true)
      expect(stopped).toMatchObject({ status: { type: "disabled" }, enabled: false, pid: null })
      yield* h.sup.enable(WEB)
      expect(h.sup.entry(yield* h.sup.get(WEB), false).status.type).toBe("stopped")
    }),
  )
})

describe("lifecycle: concurrency (no duplicate processes, ever)", () => {
  it.scoped("start ×10 of one daemon at once → exactly one spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      const all = yield* expectSleep(
        3000,
        Effect.fork(
          Effect.all(
            Array.from({ length: 10 }, () => h.sup.start(def)),
            { concurrency: "unbounded" },
          ),
        ),
      )
      yield* TestClock.adjust("3 seconds")
      const outcomes = yield* Fiber.join(all)
      const [proc] = yield* h.fake.processes
      expect(tags(outcomes)).toEqual(["AlreadyRunning", ...Array(8).fill("AlreadyRunning"), "Ready"])
      for (const o of outcomes) expect(o).toMatchObject({ id: WEB, pid: proc!.pid })
      expect(yield* spawnCount(h)).toBe(1)
      expect(yield* h.fake.running).toEqual([proc!.pid])
    }),
  )

  it.scoped("start ×10 while the first spawn is slow → exactly one spawn", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const entered = yield* Deferred.make<void>()
      const h = yield* makeHarness({
        beforePrepare: (call) =>
          call === 1 ? Deferred.succeed(entered, undefined).pipe(Effect.zipRight(gate.wait)) : Effect.void,
      })
      const def = definition("web")
      const all = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 10 }, () => h.sup.start(def)),
          { concurrency: "unbounded" },
        ),
      )
      yield* Deferred.await(entered)
      // Give the other nine every chance to get in while the first is still spawning.
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      yield* gate.open
      yield* awaitSleepUntil(3000)
      yield* TestClock.adjust("3 seconds")
      const outcomes = yield* Fiber.join(all)
      expect(tags(outcomes)).toEqual([...Array(9).fill("AlreadyRunning"), "Ready"])
      expect(yield* spawnCount(h)).toBe(1)
      expect(yield* h.maxLive(WEB)).toBe(1)
      expect(yield* h.fake.running).toHaveLength(1)
    }),
  )

  it.scoped(
    "start during the retry backoff while the retry is spawning → it answers with the retry's process, never two",
    () =>
      Effect.gen(function* () {
        const gate = yield* makeGate
        const entered = yield* Deferred.make<void>()
        const h = yield* makeHarness({
          beforePrepare: (call) =>
            call === 2 ? Deferred.succeed(entered, undefined).pipe(Effect.zipRight(gate.wait)) : Effect.void,
        })
        const def = definition("web", { retry: 1 })
        const pid = yield* startReady(h.sup, def)
        yield* expectSleep(1000, h.fake.exit(pid, { code: 1 }))
        // The retry wakes up and is held inside its spawn step.
        yield* TestClock.adjust("1 second")
        yield* Deferred.await(entered)
        expect((yield* statusOf(h, WEB)).type).toBe("errored")
        const starting = yield* Effect.fork(h.sup.start(def))
        for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
        // The start is handled after the retry's spawn, which it finds waiting for readiness.
        yield* gate.open
        const outcome = yield* Fiber.join(starting)
        const [, retried] = yield* h.fake.processes
        expect(outcome).toEqual({ _tag: "AlreadyRunning", id: WEB, pid: retried!.pid })
        yield* awaitSleepUntil((yield* TestClock.currentTimeMillis) + 3000)
        yield* TestClock.adjust("3 seconds")
        expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
        expect(yield* spawnCount(h)).toBe(2)
        expect(yield* h.maxLive(WEB)).toBe(1)
        expect(yield* h.fake.running).toEqual([retried!.pid])
      }),
  )

  const interleave = (ops: ReadonlyArray<"start" | "stop" | "restart" | "force">) =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const def = definition("web")
      yield* startReady(h.sup, def)
      const run = (op: (typeof ops)[number]) => {
        switch (op) {
          case "start":
            return h.sup.start(def).pipe(Effect.asVoid)
          case "force":
            return h.sup.start(def, { force: true }).pipe(Effect.asVoid)
          case "restart":
            return h.sup.restart(WEB).pipe(Effect.asVoid)
          case "stop":
            return h.sup.stop(WEB).pipe(Effect.asVoid)
        }
      }
      const all = yield* Effect.fork(Effect.all(ops.map(run), { concurrency: "unbounded", discard: true }))
      for (let i = 0; i < 100 && (yield* notDone(all)); i++) yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(all)
      yield* TestClock.adjust("3 seconds")
      expect(yield* h.maxLive(WEB)).toBe(1)
      const r = yield* h.sup.get(WEB)
      const live = yield* h.fake.running
      if (r.status.type === "running" || r.status.type === "waiting") expect(live).toEqual([r.pid])
      else expect(live).toEqual([])
    })

  it.scoped("start/stop/restart interleaved (1)", () =>
    interleave(["start", "stop", "restart", "start", "force", "stop", "start", "restart"]),
  )
  it.scoped("start/stop/restart interleaved (2)", () =>
    interleave(["restart", "restart", "force", "force", "start", "start", "stop", "restart"]),
  )
  it.scoped("start/stop/restart interleaved (3)", () =>
    interleave(["stop", "start", "stop", "start", "stop", "force", "restart", "stop"]),
  )
})

/** Starts the daemons together, moving the clock past their 3 s readiness; every one must be Ready. */
const startAll = (sup: SupervisorShape, defs: ReadonlyArray<DaemonDefinition>) =>
  Effect.gen(function* () {
    const all = yield* Effect.fork(Effect.forEach(defs, (d) => sup.start(d), { concurrency: "unbounded" }))
    for (let i = 0; i < 5 && (yield* notDone(all)); i++) yield* TestClock.adjust("3 seconds")
    const outcomes = yield* Fiber.join(all)
    expect(outcomes.every((o) => o._tag === "Ready")).toBe(true)
  })

describe("lifecycle: stopAll", () => {
  const stack = () => ({
    db: definition("db"),
    cache: definition("cache"),
    api: definition("api", { depends: ["app/db", "app/cache"] }),
    worker: definition("worker", { depends: ["app/db"] }),
    web: definition("web", { depends: ["app/api"] }),
  })

  /** The stop signals as daemon names, in the order they were sent. */
  const stopOrder = (h: Harness) =>
    Effect.gen(function* () {
      const byPid = new Map((yield* h.fake.processes).map((p) => [p.pid, p.request!.id] as const))
      return (yield* signalsSent(h)).map((s) => byPid.get(s.pgid)!.replace("app/", ""))
    })

  it.scoped("stops dependents before their dependencies", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const s = stack()
      yield* startAll(h.sup, [s.db, s.cache, s.api, s.worker, s.web])
      yield* h.sup.stopAll
      const order = yield* stopOrder(h)
      expect(order).toHaveLength(5)
      expect(new Set(order.slice(0, 2))).toEqual(new Set(["web", "worker"]))
      expect(order[2]).toBe("api")
      expect(new Set(order.slice(3))).toEqual(new Set(["db", "cache"]))
      expect(yield* h.fake.running).toEqual([])
      for (const r of yield* h.sup.list) expect(r.status.type).toBe("stopped")
    }),
  )

  it.scoped("a dependency is signalled only once its dependent is gone (after SIGKILL)", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const s = stack()
      yield* startAll(h.sup, [s.db])
      yield* h.fake.ignoreNext("SIGTERM")
      yield* startAll(h.sup, [s.worker])
      const stopping = yield* expectSleep(5000, Effect.fork(h.sup.stopAll))
      expect(yield* stopOrder(h)).toEqual(["worker"])
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(stopping)
      expect(yield* stopOrder(h)).toEqual(["worker", "worker", "db"])
      expect((yield* signalsSent(h)).map((x) => x.signal)).toEqual(["SIGTERM", "SIGKILL", "SIGTERM"])
    }),
  )

  it.scoped("closing the supervisor layer stops every daemon, dependents first", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      const scope = yield* Scope.make()
      const h = yield* Scope.extend(makeHarness({ fake }), scope)
      const s = stack()
      yield* startAll(h.sup, [s.db, s.cache, s.api, s.worker, s.web])
      yield* Scope.close(scope, Exit.void)
      const order = yield* stopOrder(h)
      expect(new Set(order.slice(0, 2))).toEqual(new Set(["web", "worker"]))
      expect(order[2]).toBe("api")
      expect(new Set(order.slice(3))).toEqual(new Set(["db", "cache"]))
      expect(yield* fake.running).toEqual([])
    }),
  )
})

describe("lifecycle: detach (the supervisor replaced, its daemons kept)", () => {
  it.scoped(
    "leaves every process running, recorded as running for the next supervisor; no signal, no hook",
    () =>
      Effect.gen(function* () {
        const fake = yield* makeFakeProcessService()
        const scope = yield* Scope.make()
        const h = yield* Scope.extend(makeHarness({ fake }), scope)
        yield* startAll(h.sup, [
          definition("db"),
          definition("api", { depends: ["app/db"], hooks: { on_exit: "echo bye" } }),
        ])
        const running = yield* fake.running
        expect(running).toHaveLength(2)

        expect(yield* h.sup.detach).toBe(2)
        const saved = h.stateOnDisk().daemons
        // the layer closes as the host exits: still nothing is stopped
        const hooks = h.hooks
        yield* Scope.close(scope, Exit.void)
        expect(yield* fake.running).toEqual(running)
        expect(yield* signalsSent(h)).toEqual([])
        expect(yield* hooks).toEqual([])
        for (const id of ["app/db", "app/api"]) {
          expect(saved[id]?.status.type).toBe("running")
          expect(running).toContain(saved[id]?.pid)
          expect(saved[id]?.start_time).not.toBeNull()
        }
      }),
  )
})

describe("lifecycle: adoption after a supervisor restart", () => {
  const record = (
    def: DaemonDefinition,
    status: DaemonRecord["status"],
    pid: number | null,
    startTime: string | null,
  ): DaemonRecord => ({
    id: def.id.qualified,
    definition: encodeDefinition(def),
    adhoc: false,
    status,
    pid,
    start_time: startTime,
    started_at: 1_700_000_000_000,
    ports: [],
    retry_count: 2,
    retry_pending: false,
  })
  const stateWith = (...records: ReadonlyArray<DaemonRecord>): PersistentState => ({
    version: 1,
    cron: {},
    scaled: {},
    daemons: Object.fromEntries(records.map((r) => [r.id, r])),
    disabled: [],
    namespaces: {},
    projects: [],
  })

  it.scoped(
    'settings.supervisor.orphan_policy = "kill": a recorded live process is taken back, then stopped',
    () =>
      Effect.gen(function* () {
        const fake = yield* makeFakeProcessService()
        const alive = yield* fake.seed()
        const web = definition("web")
        const h = yield* makeHarness({
          fake,
          settings: { supervisor: { orphan_policy: "kill" } },
          initialState: stateWith(record(web, { type: "running" }, alive.pid, alive.startTime)),
        })
        yield* awaitStatus(h.sup, WEB, "stopped")
        expect(yield* spawnCount(h)).toBe(0)
        expect(yield* signalsSent(h)).toEqual([{ pgid: alive.pid, signal: "SIGTERM" }])
        expect(yield* fake.running).toEqual([])
      }),
  )

  it.scoped("a recorded running process that is still alive is adopted, not spawned; stop works", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      const alive = yield* fake.seed()
      const web = definition("web")
      const h = yield* makeHarness({
        fake,
        initialState: stateWith(record(web, { type: "running" }, alive.pid, alive.startTime)),
      })
      expect(yield* spawnCount(h)).toBe(0)
      const r = yield* h.sup.get(WEB)
      expect(r.status).toEqual({ type: "running" })
      expect(r.pid).toBe(alive.pid)
      expect(r.startTime).toBe(alive.startTime)
      expect(r.retryCount).toBe(2)
      expect(r.startedAt).toBe(1_700_000_000_000)
      expect(yield* h.sup.start(web)).toEqual({ _tag: "AlreadyRunning", id: WEB, pid: alive.pid })
      expect(yield* spawnCount(h)).toBe(0)

      expect(yield* h.sup.stop(WEB)).toBe(true)
      expect(yield* signalsSent(h)).toEqual([{ pgid: alive.pid, signal: "SIGTERM" }])
      expect(yield* fake.running).toEqual([])
      // Not our child: no exit status is known.
      expect(yield* statusOf(h, WEB)).toEqual({ type: "stopped", exit_code: null, signal: null })
    }),
  )

  it.scoped(
    "an adopted process that exits on its own is a crash (exit status unknown): retried with its retries left",
    () =>
      Effect.gen(function* () {
        const fake = yield* makeFakeProcessService()
        const alive = yield* fake.seed()
        const web = definition("web", { retry: 3 }) // the record has used 2 of them
        const h = yield* makeHarness({
          fake,
          initialState: stateWith(record(web, { type: "waiting" }, alive.pid, alive.startTime)),
        })
        expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
        yield* expectSleep(1000, fake.exit(alive.pid, { code: 1 }))
        const r = yield* h.sup.get(WEB)
        expect(r.status).toEqual({
          type: "errored",
          exit_code: null,
          signal: null,
          message: "exited; its exit status is unknown (it was adopted after a supervisor restart)",
        })
        expect(r.retryPending).toBe(true)
        yield* TestClock.adjust("1 second")
        const retried = yield* awaitRuntime(h.sup, WEB, (x) => x.status.type === "waiting")
        expect(retried.retryCount).toBe(3)
        expect((yield* Ref.get(fake.spawned)).map((q) => q.env.SUPERVISOR_RETRY_COUNT)).toEqual(["3"])
        // the last retry is used up: its next crash leaves it errored
        yield* fake.exit(retried.pid!, { code: 1 })
        yield* awaitRuntime(h.sup, WEB, (x) => x.status.type === "errored" && !x.retryPending)
        yield* TestClock.adjust("10 minutes")
        expect(yield* spawnCount(h)).toBe(1)
      }),
  )

  it.scoped(
    "a dead or recycled pid: errored (a crash nobody saw), never signalled, retried when a retry is left",
    () =>
      Effect.gen(function* () {
        const fake = yield* makeFakeProcessService()
        const stranger = yield* fake.seed() // same pid as recorded, other start time: a recycled pid
        const gone = definition("gone")
        const recycled = definition("recycled")
        const old = definition("old")
        const again = definition("again", { retry: 5 })
        const h = yield* makeHarness({
          fake,
          initialState: stateWith(
            record(gone, { type: "running" }, 4242, "123456"),
            record(recycled, { type: "running" }, stranger.pid, "1"),
            record(old, { type: "stopped", exit_code: 0, signal: null }, null, null),
            record(again, { type: "running" }, 4343, "123"),
          ),
        })
        const message = "exited while the supervisor was not running; its exit status is unknown"
        for (const id of ["app/gone", "app/recycled"]) {
          const r = yield* awaitRuntime(h.sup, id, (x) => !x.retryPending)
          expect(r.status).toEqual({ type: "errored", exit_code: null, signal: null, message })
          expect(r.pid).toBeNull()
        }
        yield* h.sup.sync
        expect(h.stateOnDisk().daemons["app/gone"]).toMatchObject({
          status: { type: "errored", message },
          pid: null,
        })
        expect(yield* statusOf(h, "app/old")).toEqual({ type: "stopped", exit_code: 0, signal: null })
        expect((yield* h.sup.list).map((r) => r.def.id.qualified).sort()).toEqual([
          "app/again",
          "app/gone",
          "app/old",
          "app/recycled",
        ])
        expect(yield* fake.running).toEqual([stranger.pid])
        expect(yield* signalsSent(h)).toEqual([])
        // `again` had used 2 of its 5 retries: the third comes after the backoff
        yield* awaitSleepUntil(1000)
        yield* TestClock.adjust("1 second")
        const retried = yield* awaitRuntime(h.sup, "app/again", (x) => x.status.type === "waiting")
        expect(retried.retryCount).toBe(3)
        expect(yield* spawnCount(h)).toBe(1)
        yield* h.sup.stopAll
        expect(yield* signalsSent(h)).toEqual([{ pgid: retried.pid!, signal: "SIGTERM" }])
      }),
  )

  it.scoped("a record whose definition cannot be read is skipped", () =>
    Effect.gen(function* () {
      const web = definition("web")
      const h = yield* makeHarness({
        initialState: stateWith({ ...record(web, { type: "running" }, 4242, "1"), definition: { run: 1 } }),
      })
      expect((yield* Effect.flip(h.sup.get(WEB)))._tag).toBe("DaemonNotFound")
      expect(yield* h.sup.list).toEqual([])
    }),
  )
})

describe("lifecycle: clean and wait", () => {
  it.scoped("clean forgets the daemons that are not running, and only those", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const a = yield* startReady(h.sup, definition("a"))
      const b = yield* startReady(h.sup, definition("b"))
      yield* h.fake.exit(b, { code: 0 })
      yield* awaitStatus(h.sup, "app/b", "stopped")
      const c = yield* startReady(h.sup, definition("c"))
      yield* h.fake.exit(c, { code: 1 })
      yield* awaitStatus(h.sup, "app/c", "errored")
      yield* h.fake.failNext()
      yield* h.sup.start(definition("d"))
      expect(yield* statusOf(h, "app/d")).toMatchObject({ type: "failed" })
      const e = yield* startReady(h.sup, definition("e", { retry: 5 }))
      yield* expectSleep(1000, h.fake.exit(e, { code: 1 })) // errored, backing off

      expect(yield* h.sup.clean(["app/c", "app/a"])).toEqual(["app/c"])
      expect(yield* h.sup.clean()).toEqual(["app/b", "app/d", "app/e"])
      expect((yield* h.sup.list).map((r) => r.def.id.qualified)).toEqual(["app/a"])
      expect(Object.keys(h.stateOnDisk().daemons)).toEqual(["app/a"])
      expect(yield* h.forgotten).toEqual(["app/c", "app/b", "app/d", "app/e"])
      expect(yield* h.fake.running).toEqual([a])
      expect((yield* Effect.flip(h.sup.get("app/e")))._tag).toBe("DaemonNotFound")
      // The forgotten daemon's retry does not happen.
      yield* TestClock.adjust("10 minutes")
      expect(yield* spawnCount(h)).toBe(5)
      expect(yield* h.sup.clean()).toEqual([])
    }),
  )

  it.scoped("clean with namespaces forgets only their stopped daemons, plus the IDs named", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      for (const [name, namespace] of [
        ["a", "app"],
        ["b", "other"],
        ["c", "third"],
      ] as const) {
        const pid = yield* startReady(h.sup, definition(name, {}, namespace))
        yield* h.fake.exit(pid, { code: 0 })
        yield* awaitStatus(h.sup, `${namespace}/${name}`, "stopped")
      }
      expect(yield* h.sup.clean(undefined, ["app"])).toEqual(["app/a"])
      expect(yield* h.sup.clean(["third/c"], ["nothing"])).toEqual(["third/c"])
      expect((yield* h.sup.list).map((r) => r.def.id.qualified)).toEqual(["other/b"])
      expect(yield* h.forgotten).toEqual(["app/a", "third/c"])
    }),
  )

  it.scoped("clean does not forget a daemon that is being started", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const entered = yield* Deferred.make<void>()
      const h = yield* makeHarness({
        beforePrepare: (call) =>
          call === 2 ? Deferred.succeed(entered, undefined).pipe(Effect.zipRight(gate.wait)) : Effect.void,
      })
      const def = definition("web")
      yield* startReady(h.sup, def)
      yield* h.sup.stop(WEB)
      const starting = yield* Effect.fork(h.sup.start(def))
      yield* Deferred.await(entered) // stopped, and being spawned again
      const cleaning = yield* Effect.fork(h.sup.clean())
      for (let i = 0; i < 200; i++) yield* Effect.yieldNow()
      yield* gate.open
      expect(yield* Fiber.join(cleaning)).toEqual([])
      yield* awaitSleepUntil((yield* TestClock.currentTimeMillis) + 3000)
      yield* TestClock.adjust("3 seconds")
      const outcome = yield* Fiber.join(starting)
      expect(outcome._tag).toBe("Ready")
      expect(yield* h.fake.running).toEqual([(outcome as { pid: number }).pid])
      expect((yield* h.sup.list).map((r) => r.def.id.qualified)).toEqual([WEB])
    }),
  )

  it.scoped("wait returns when the daemon exits, with its exit status", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const pid = yield* startReady(h.sup, definition("web"))
      const waiting = yield* Effect.fork(h.sup.wait(WEB))
      yield* TestClock.adjust("1 hour")
      expect(yield* notDone(waiting)).toBe(true)
      yield* h.fake.exit(pid, { code: 3 })
      const r = yield* Fiber.join(waiting)
      expect(r.status).toEqual({ type: "errored", exit_code: 3, signal: null, message: "exited with code 3" })
      // Already exited: at once.
      expect((yield* h.sup.wait(WEB)).status.type).toBe("errored")
      expect((yield* Effect.flip(h.sup.wait("app/nope")))._tag).toBe("DaemonNotFound")
    }),
  )

  it.scoped("wait returns when the daemon is stopped", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web"))
      const waiting = yield* Effect.fork(h.sup.wait(WEB))
      yield* h.sup.stop(WEB)
      expect((yield* Fiber.join(waiting)).status).toEqual({
        type: "stopped",
        exit_code: null,
        signal: "SIGTERM",
      })
    }),
  )
})
