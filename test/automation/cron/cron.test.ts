import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Ref, Scope, Stream, SubscriptionRef, TestClock } from "effect"
import {
  type CronDeps,
  type CronView,
  configuredSchedules,
  MAX_SLEEP_MS,
  makeCron,
  supervisorView,
} from "../../../src/automation/cron/Cron.js"
import { type CronSchedule, decide, type LastRun, type Retrigger } from "../../../src/domain/cronSchedule.js"
import type { DaemonDefinition } from "../../../src/domain/DaemonDefinition.js"
import {
  awaitSleepUntil,
  awaitSpawns,
  awaitStatus,
  definition,
  makeHarness,
} from "../../supervisor/helpers.js"

const WEB = "app/web"
/** 2030-01-01T00:00:00Z: a minute boundary. */
const BASE = Date.UTC(2030, 0, 1)

const schedule = (over: Partial<CronSchedule> = {}): CronSchedule => ({
  id: WEB,
  schedule: "0 * * * * *",
  retrigger: "finish",
  immediate: false,
  ...over,
})

/** A cron with a fake daemon: records firings (at TestClock time) and notes. */
const fakeCron = (s: CronSchedule, handled: Ref.Ref<Record<string, number>>, view: Partial<CronView> = {}) =>
  Effect.gen(function* () {
    const fired = yield* Ref.make<ReadonlyArray<number>>([])
    const notes = yield* Ref.make<ReadonlyArray<string>>([])
    const deps: CronDeps = {
      fire: () =>
        Effect.flatMap(TestClock.currentTimeMillis, (now) => Ref.update(fired, (f) => [...f, Number(now)])),
      view: () => Effect.succeed({ running: false, enabled: true, last: "never", ...view }),
      note: (_, text) => Ref.update(notes, (n) => [...n, text]),
      handled: (id) => Effect.map(Ref.get(handled), (h) => h[id]),
      setHandled: (id, at) => Ref.update(handled, (h) => ({ ...h, [id]: at })),
    }
    const scope = yield* Scope.make()
    yield* Scope.extend(makeCron(Stream.make([s]), deps), scope)
    return { fired, notes, close: Scope.close(scope, Exit.void) }
  })

/** Waits (yielding, bounded) until `ref` holds `n` items. */
const awaitCount = <A>(ref: Ref.Ref<ReadonlyArray<A>>, n: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* Ref.get(ref)).length >= n) return yield* Ref.get(ref)
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`expected ${n} items, got ${(yield* Ref.get(ref)).length}`)
  })

/** Lets forked work settle without moving the clock. */
const settle = Effect.repeatN(Effect.yieldNow(), 200)

type Effect_ = "start" | "restart" | "skip"
const MATRIX: ReadonlyArray<readonly [Retrigger, boolean, LastRun, Effect_]> = [
  ["finish", false, "never", "start"],
  ["finish", false, "success", "start"],
  ["finish", false, "fail", "start"],
  ["finish", true, "never", "skip"],
  ["finish", true, "success", "skip"],
  ["finish", true, "fail", "skip"],
  ["always", false, "never", "start"],
  ["always", false, "success", "start"],
  ["always", false, "fail", "start"],
  ["always", true, "never", "restart"],
  ["always", true, "success", "restart"],
  ["always", true, "fail", "restart"],
  ["success", false, "never", "start"],
  ["success", false, "success", "start"],
  ["success", false, "fail", "skip"],
  ["success", true, "never", "skip"],
  ["success", true, "success", "skip"],
  ["success", true, "fail", "skip"],
  ["fail", false, "never", "start"],
  ["fail", false, "success", "skip"],
  ["fail", false, "fail", "start"],
  ["fail", true, "never", "skip"],
  ["fail", true, "success", "skip"],
  ["fail", true, "fail", "skip"],
]

describe("cron retrigger matrix", () => {
  it.each(MATRIX)("decide(%s, running %s, last %s) = %s", (mode, running, last, expected) => {
    expect(decide(mode, running, last)._tag).toBe(expected)
  })

  // The same matrix through the service and the fake process layer: the daemon's state is made
  // real (a run that exited 0 or 1, a running one, or none), then the schedule fires.
  for (const [mode, running, last, expected] of MATRIX) {
    it.effect(`${mode}, ${running ? "running" : "not running"}, last run ${last}: ${expected}`, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(BASE + 1000)
        const h = yield* makeHarness()
        const def = definition("web", { ready_delay: 0, cron: { schedule: "0 * * * * *", retrigger: mode } })
        let pid: number | undefined
        if (last !== "never") {
          yield* h.sup.start(def)
          const r = yield* h.sup.get(WEB)
          yield* h.fake.exit(r.pid as number, { code: last === "success" ? 0 : 1 })
          yield* awaitStatus(h.sup, WEB, last === "success" ? "stopped" : "errored")
        }
        if (running) {
          yield* h.sup.start(def)
          pid = (yield* h.sup.get(WEB)).pid as number
        }
        const spawnsBefore = (yield* Ref.get(h.fake.spawned)).length
        const notes = yield* Ref.make<ReadonlyArray<string>>([])
        const view = supervisorView(h.sup)
        // how the view sees the prepared state
        expect(yield* view(WEB)).toEqual({ running, enabled: true, last: running ? "never" : last })
        yield* makeCron(
          Stream.make([{ id: WEB, schedule: "0 * * * * *", retrigger: mode, immediate: false }]),
          {
            fire: (id, restart) =>
              Effect.orDie(
                Effect.asVoid(
                  restart ? h.sup.restart(id, def, "cron") : h.sup.start(def, { reason: "cron" }),
                ),
              ),
            view,
            note: (_, text) => Ref.update(notes, (n) => [...n, text]),
            handled: () => Effect.succeed(undefined),
            setHandled: () => Effect.void,
          },
        )
        yield* awaitSleepUntil(BASE + 60_000)
        yield* TestClock.adjust(59_000)
        const noted = yield* awaitCount(notes, 1)
        if (expected === "skip") {
          yield* settle
          expect((yield* Ref.get(h.fake.spawned)).length).toBe(spawnsBefore)
          expect(noted[0]).toMatch(
            new RegExp(`^cron: skipped \\(schedule "0 \\* \\* \\* \\* \\*"\\): .*retrigger = "${mode}"`),
          )
        } else {
          yield* awaitSpawns(h.fake, spawnsBefore + 1)
          expect(noted[0]).toBe(
            `cron: ${expected === "restart" ? "restarting" : "starting"} (schedule "0 * * * * *")`,
          )
          const signalled = (yield* Ref.get(h.fake.signals)).some((s) => s.pgid === pid)
          expect(signalled).toBe(expected === "restart")
          const r = yield* awaitStatus(h.sup, WEB, "running")
          expect(r.pid).not.toBe(pid)
        }
      }).pipe(Effect.scoped),
    )
  }
})

describe("cron timing", () => {
  it.effect("fires at each scheduled time, not before; a run of skips is noted once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 1000)
      const handled = yield* Ref.make<Record<string, number>>({})
      const c = yield* fakeCron(schedule(), handled)
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust(58_999)
      yield* settle
      expect(yield* Ref.get(c.fired)).toEqual([])
      yield* TestClock.adjust(1)
      expect(yield* awaitCount(c.fired, 1)).toEqual([BASE + 60_000])
      yield* awaitSleepUntil(BASE + 120_000)
      yield* TestClock.adjust(60_000)
      expect(yield* awaitCount(c.fired, 2)).toEqual([BASE + 60_000, BASE + 120_000])
      expect((yield* Ref.get(handled))[WEB]).toBe(BASE + 120_000)
      yield* c.close
      // a daemon that keeps running: three skipped firings, one note
      const busy = yield* fakeCron(schedule(), yield* Ref.make({}), { running: true })
      for (const at of [180_000, 240_000, 300_000]) {
        yield* awaitSleepUntil(BASE + at)
        yield* TestClock.adjust(60_000)
      }
      yield* settle
      expect(yield* Ref.get(busy.fired)).toEqual([])
      expect(yield* Ref.get(busy.notes)).toEqual([
        'cron: skipped (schedule "0 * * * * *"): the previous run is still running (retrigger = "finish")',
      ])
    }).pipe(Effect.scoped),
  )

  it.effect("a disabled daemon is not fired", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 1000)
      const c = yield* fakeCron(schedule(), yield* Ref.make({}), { enabled: false })
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust(59_000)
      expect(yield* awaitCount(c.notes, 1)).toEqual([
        'cron: skipped (schedule "0 * * * * *"): it is disabled',
      ])
      expect(yield* Ref.get(c.fired)).toEqual([])
    }).pipe(Effect.scoped),
  )
})

describe("cron far ahead", () => {
  it.effect("a schedule a month away fires on time: the wait is made of sleeps of a day at most", () =>
    Effect.gen(function* () {
      const feb1 = new Date(2030, 1, 1).getTime()
      yield* TestClock.setTime(new Date(2030, 0, 1, 0, 0, 1).getTime())
      const c = yield* fakeCron(schedule({ schedule: "0 0 0 1 2 *" }), yield* Ref.make({}))
      for (;;) {
        const now = yield* TestClock.currentTimeMillis
        if (now >= feb1) break
        expect(yield* Ref.get(c.fired)).toEqual([])
        const target = Math.min(now + MAX_SLEEP_MS, feb1)
        yield* awaitSleepUntil(target)
        yield* TestClock.adjust(target - now)
      }
      expect(yield* awaitCount(c.fired, 1)).toEqual([feb1])
    }).pipe(Effect.scoped),
  )
})

describe("cron immediate", () => {
  it.effect("immediate fires at once when a scheduled time fell within the 10 s before the take-on", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 4000)
      const c = yield* fakeCron(schedule({ immediate: true }), yield* Ref.make({}))
      expect(yield* awaitCount(c.fired, 1)).toEqual([BASE + 4000])
      expect((yield* Ref.get(c.notes))[0]).toBe(
        `cron: starting (schedule "0 * * * * *", missed run of ${new Date(BASE).toISOString()})`,
      )
      // then the schedule as usual
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust(56_000)
      expect(yield* awaitCount(c.fired, 2)).toEqual([BASE + 4000, BASE + 60_000])
    }).pipe(Effect.scoped),
  )

  it.effect("immediate does not fire when the last scheduled time is more than 10 s old", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 11_000)
      const c = yield* fakeCron(schedule({ immediate: true }), yield* Ref.make({}))
      yield* awaitSleepUntil(BASE + 60_000)
      expect(yield* Ref.get(c.fired)).toEqual([])
    }).pipe(Effect.scoped),
  )

  it.effect("without immediate, a scheduled time just before the take-on does not fire", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 4000)
      const c = yield* fakeCron(schedule(), yield* Ref.make({}))
      yield* awaitSleepUntil(BASE + 60_000)
      expect(yield* Ref.get(c.fired)).toEqual([])
    }).pipe(Effect.scoped),
  )
})

describe("cron persistence across a restart of the service", () => {
  it.effect("a time missed while the service was down fires once; nothing fired before fires again", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 1000)
      const handled = yield* Ref.make<Record<string, number>>({})
      const first = yield* fakeCron(schedule(), handled)
      yield* awaitSleepUntil(BASE + 60_000)
      yield* TestClock.adjust(59_000)
      expect(yield* awaitCount(first.fired, 1)).toEqual([BASE + 60_000])
      yield* first.close
      // back one second later: BASE + 60 s was fired, nothing fires at take-on
      yield* TestClock.adjust(1000)
      const second = yield* fakeCron(schedule(), handled)
      yield* awaitSleepUntil(BASE + 120_000)
      expect(yield* Ref.get(second.fired)).toEqual([])
      yield* second.close
      // down over BASE + 120 s and BASE + 180 s: one catch-up run at take-on, then the schedule
      yield* TestClock.setTime(BASE + 190_000)
      const third = yield* fakeCron(schedule(), handled)
      expect(yield* awaitCount(third.fired, 1)).toEqual([BASE + 190_000])
      yield* awaitSleepUntil(BASE + 240_000)
      yield* TestClock.adjust(50_000)
      expect(yield* awaitCount(third.fired, 2)).toEqual([BASE + 190_000, BASE + 240_000])
      yield* third.close
      // restarted at once: nothing doubles
      const fourth = yield* fakeCron(schedule(), handled)
      yield* awaitSleepUntil(BASE + 300_000)
      expect(yield* Ref.get(fourth.fired)).toEqual([])
    }).pipe(Effect.scoped),
  )

  it.effect("a missed time fires once within the catch-up window (24 h), not before it", () =>
    Effect.gen(function* () {
      // local midnight: croner reads schedules in local time
      const midnight = new Date(2030, 0, 1).getTime()
      const day = 86_400_000
      yield* TestClock.setTime(midnight + 1000)
      const handled = yield* Ref.make<Record<string, number>>({ [WEB]: midnight - 3 * day })
      // 03:00 of the two days before were missed; yesterday's is within 24 h: one run
      const c = yield* fakeCron(schedule({ schedule: "0 0 3 * * *" }), handled)
      expect(yield* awaitCount(c.fired, 1)).toEqual([midnight + 1000])
      yield* c.close
      // Dec 30, 12:00 was missed too, but 36 h ago: outside the window, it does not fire
      yield* Ref.set(handled, { [WEB]: midnight - 3 * day })
      const old = yield* fakeCron(schedule({ schedule: "0 0 12 30 12 *" }), handled)
      // it sleeps (a day at most at a time: timers have a limit) towards next Dec 30
      yield* awaitSleepUntil(midnight + 1000 + MAX_SLEEP_MS)
      expect(yield* Ref.get(old.fired)).toEqual([])
    }).pipe(Effect.scoped),
  )
})

describe("cron follows the configuration", () => {
  it.effect("a daemon added, edited or removed in its file gets, changes or loses its schedule", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(BASE + 1000)
      const defs = yield* SubscriptionRef.make<ReadonlyArray<DaemonDefinition>>([definition("plain")])
      const fired = yield* Ref.make<ReadonlyArray<readonly [string, number]>>([])
      const cron = yield* makeCron(configuredSchedules(defs.changes), {
        fire: (id) =>
          Effect.flatMap(TestClock.currentTimeMillis, (now) =>
            Ref.update(fired, (f) => [...f, [id, now] as const]),
          ),
        view: () => Effect.succeed({ running: false, enabled: true, last: "never" }),
        note: () => Effect.void,
        handled: () => Effect.succeed(undefined),
        setHandled: () => Effect.void,
      })
      yield* settle
      expect(yield* cron.scheduled).toEqual([])
      // added: every minute
      yield* SubscriptionRef.set(defs, [definition("plain"), definition("web", { cron: "0 * * * * *" })])
      yield* awaitSleepUntil(BASE + 60_000)
      expect((yield* cron.scheduled).map((s) => s.schedule)).toEqual(["0 * * * * *"])
      yield* TestClock.adjust(59_000)
      expect(yield* awaitCount(fired, 1)).toEqual([[WEB, BASE + 60_000]])
      // edited: every 10 seconds from now on
      yield* SubscriptionRef.set(defs, [definition("web", { cron: { schedule: "*/10 * * * * *" } })])
      yield* awaitSleepUntil(BASE + 70_000)
      yield* TestClock.adjust(10_000)
      expect(yield* awaitCount(fired, 2)).toEqual([
        [WEB, BASE + 60_000],
        [WEB, BASE + 70_000],
      ])
      // removed: no more firings
      yield* SubscriptionRef.set(defs, [])
      yield* settle
      expect(yield* cron.scheduled).toEqual([])
      yield* TestClock.adjust(60_000)
      yield* settle
      expect((yield* Ref.get(fired)).length).toBe(2)
    }).pipe(Effect.scoped),
  )
})
