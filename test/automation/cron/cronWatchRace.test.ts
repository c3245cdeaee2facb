// A watch restart and a cron `always` restart of the same daemon, interleaved: the real cron and
// watch services over the real supervisor and the fake process layer. However they overlap
// (one arrives while the other is stopping the old process, or spawning the new one), the
// daemon ends with exactly one live process, and never had two at once.
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Ref, Stream, TestClock } from "effect"
import { makeCron, supervisorView } from "../../../src/automation/cron/Cron.js"
import type { Backend, BackendEvents } from "../../../src/automation/watch/fileWatcher.js"
import { daemonSpecs, makeWatch } from "../../../src/automation/watch/Watch.js"
import type { CronSchedule } from "../../../src/domain/cronSchedule.js"
import {
  awaitSleepUntil,
  awaitStatus,
  definition,
  type Harness,
  makeGate,
  makeHarness,
  spawnCount,
} from "../../supervisor/helpers.js"

const WEB = "app/web"
/** 2030-01-01T00:00:00Z: a minute boundary. */
const BASE = Date.UTC(2030, 0, 1)
const STOP_TIMEOUT = 5_000

const def = definition("web", {
  ready_delay: 0,
  watch: ["src/*.js"],
  cron: { schedule: "0 * * * * *", retrigger: "always" },
  stop_signal: { signal: "SIGTERM", timeout: "5s" },
})
const cronSchedule: CronSchedule = { id: WEB, schedule: "0 * * * * *", retrigger: "always", immediate: false }

/** The harness, with the cron and watch services as the supervisor wires them (Control aside). */
const setup = (beforePrepare?: (call: number) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(BASE + 50_000)
    const h = yield* makeHarness(beforePrepare === undefined ? {} : { beforePrepare })
    const events: Array<BackendEvents> = []
    const backend: Backend = (_roots, _options, on) => {
      events.push(on)
      on.ready()
      return { close: async () => {} }
    }
    yield* makeWatch(
      daemonSpecs(h.sup, { debounce: Duration.seconds(1), pollInterval: Duration.millis(500) }),
      {
        restart: (id, detail) => h.sup.restartIfRunning(id, "watch", undefined, detail).pipe(Effect.ignore),
        note: () => Effect.void,
        problem: () => Effect.void,
        backend,
        stateDir: undefined,
      },
    )
    yield* makeCron(Stream.make([cronSchedule]), {
      fire: (_id, restart) => h.sup.start(def, { force: restart, reason: "cron" }).pipe(Effect.asVoid),
      view: supervisorView(h.sup),
      note: () => Effect.void,
      handled: () => Effect.succeed(undefined),
      setHandled: () => Effect.void,
    })
    yield* h.sup.start(def)
    // the watcher of the running daemon is open
    for (let turn = 0; turn < 20_000 && events.length === 0; turn++) yield* Effect.yieldNow()
    if (events.length === 0) return yield* Effect.dieMessage("no watcher opened")
    const changed = (file: string) => Effect.sync(() => events[events.length - 1]!.change(file))
    return { h, changed }
  })

/** Moves the clock a second at a time until the daemon runs one process and nothing sleeps on a stop. */
const settle = (h: Harness) =>
  Effect.gen(function* () {
    for (let i = 0; i < 30; i++) {
      yield* Effect.repeatN(Effect.yieldNow(), 50)
      yield* TestClock.adjust("1 second")
    }
    const r = yield* awaitStatus(h.sup, WEB, "running")
    expect(yield* h.fake.running).toEqual([r.pid])
    expect(yield* h.maxLive(WEB)).toBe(1)
    return r
  })

describe("watch restart during a cron `always` restart", () => {
  it.scoped("arriving while the cron restart is stopping the old process: one process, never two", () =>
    Effect.gen(function* () {
      const { h, changed } = yield* setup()
      const [first] = yield* h.fake.running
      // the old process outlives SIGTERM: the cron restart's stop lasts the stop timeout
      yield* h.fake.ignore(first!, "SIGTERM")
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust("10 seconds") // the cron fires at :00
      yield* awaitStatus(h.sup, WEB, "stopping")
      yield* awaitSleepUntil(BASE + 60_000 + STOP_TIMEOUT)
      // a burst of writes meanwhile; the debounce ends while the stop still waits
      yield* changed("/srv/src/app.js")
      yield* awaitSleepUntil(BASE + 61_000)
      yield* TestClock.adjust("1 second")
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopping")
      const r = yield* settle(h)
      expect(r.pid).not.toBe(first)
      // the first process, the cron's, then the watch's (it found the cron's running)
      expect(yield* spawnCount(h)).toBe(3)
      expect(yield* Ref.get(h.fake.signals)).toContainEqual({ pgid: first, signal: "SIGKILL" })
    }),
  )

  it.scoped("arriving while the cron restart spawns the new process: one process, never two", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const entered = yield* Deferred.make<void>()
      // the second spawn (the cron's) is held inside its spawn step
      const { h, changed } = yield* setup((call) =>
        call === 2 ? Deferred.succeed(entered, undefined).pipe(Effect.zipRight(gate.wait)) : Effect.void,
      )
      const [first] = yield* h.fake.running
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust("10 seconds")
      yield* Deferred.await(entered)
      yield* changed("/srv/src/app.js")
      yield* awaitSleepUntil(BASE + 61_000)
      yield* TestClock.adjust("1 second")
      yield* Effect.repeatN(Effect.yieldNow(), 200)
      yield* gate.open
      const r = yield* settle(h)
      expect(r.pid).not.toBe(first)
      expect(yield* spawnCount(h)).toBe(3)
    }),
  )

  it.scoped("the cron firing while a watch restart is stopping the old process: one process, never two", () =>
    Effect.gen(function* () {
      const { h, changed } = yield* setup()
      const [first] = yield* h.fake.running
      yield* h.fake.ignore(first!, "SIGTERM")
      // the debounce ends at :59, the stop lasts past the cron's :00
      yield* TestClock.adjust("8 seconds")
      yield* changed("/srv/src/app.js")
      yield* awaitSleepUntil(BASE + 59_000)
      yield* TestClock.adjust("1 second")
      yield* awaitStatus(h.sup, WEB, "stopping")
      yield* awaitSleepUntil(BASE + 59_000 + STOP_TIMEOUT)
      yield* TestClock.adjust("1 second") // the cron fires at :00, the stop still waits
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopping")
      const r = yield* settle(h)
      expect(r.pid).not.toBe(first)
      expect(yield* spawnCount(h)).toBe(3)
    }),
  )
})
