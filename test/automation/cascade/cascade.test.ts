import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Stream, TestClock } from "effect"
import { followReadiness } from "../../../src/automation/cascade/Cascade.js"
import { dependentsToRestart } from "../../../src/control/dependents.js"
import type { RestartDependents } from "../../../src/domain/Command.js"
import type { SupervisorEvent } from "../../../src/domain/SupervisorEvent.js"
import { EventLog } from "../../../src/events/EventLog.js"
import { type DaemonState, initialState } from "../../../src/supervisor/DaemonState.js"
import { makeFakeControl } from "../../../src/testing/FakeControl.js"
import {
  awaitRuntime,
  definition,
  expectSleep,
  expectSleepUntil,
  makeHarness,
  startReady,
} from "../../supervisor/helpers.js"

/** Lets the wall clock move on by a millisecond: spawns compare their `startedAt` (epoch ms). */
const nextMillisecond = Effect.sync(() => {
  const now = Date.now()
  while (Date.now() === now) {
    // the next millisecond comes within one
  }
})

const state = (
  name: string,
  depends: ReadonlyArray<string>,
  status: DaemonState["status"]["type"],
  startedAt: number | null,
): DaemonState => ({
  ...initialState(definition(name, { depends: [...depends] })),
  status: { type: status } as DaemonState["status"],
  startedAt,
})

describe("cascading restarts: which dependents", () => {
  it("the running and starting dependents spawned before the dependency's run, in dependency order", () => {
    const states = [
      state("db", [], "running", 100),
      // depends on db and on api: after api
      state("worker", ["app/db", "app/api"], "running", 50),
      state("api", ["app/db"], "waiting", 60),
      // spawned after db's run: started against it
      state("late", ["app/db"], "running", 150),
      // not running
      state("gone", ["app/db"], "stopped", 40),
      state("stopping", ["app/db"], "stopping", 40),
      // not a dependent
      state("other", [], "running", 10),
    ]
    expect(dependentsToRestart(states, "app/db").map((r) => r.def.id.qualified)).toEqual([
      "app/api",
      "app/worker",
    ])
  })

  it("nothing for a dependency that never ran or is unknown", () => {
    expect(dependentsToRestart([state("db", [], "available", null)], "app/db")).toEqual([])
    expect(dependentsToRestart([], "app/db")).toEqual([])
  })
})

describe("cascading restarts: after the dependency is ready again", () => {
  it.scoped(
    "a restart of a daemon with restart_dependents restarts its running dependent once it is ready, reason dependency",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const control = yield* makeFakeControl(h.sup)
        yield* followReadiness(control.service, h.sup).pipe(Effect.provideService(EventLog, h.events))
        const db = definition("db", { restart_dependents: true, ready_delay: 1 })
        const api = definition("api", { depends: ["app/db"], ready_delay: 1 })
        const plain = definition("cache", { ready_delay: 1 })
        const user = definition("user", { depends: ["app/cache"], ready_delay: 1 })
        for (const def of [db, api, plain, user]) yield* startReady(h.sup, def)
        yield* nextMillisecond
        const seen = yield* h.events.open()
        // the dependency's restart: waiting for its readiness, nothing sent yet
        const restarting = yield* expectSleep(1000, Effect.fork(h.sup.restart("app/db", undefined, "cli")))
        expect(yield* control.commands).toEqual([])
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(restarting)
        // then its dependents, by a RestartDependents command with reason `dependency`
        const restartedApi = yield* awaitRuntime(
          h.sup,
          "app/api",
          (r) => r.status.type === "waiting" && (r.spawns ?? 0) === 2,
        )
        const [sent] = (yield* control.commands) as ReadonlyArray<RestartDependents>
        expect(sent).toMatchObject({ _tag: "RestartDependents", id: "app/db", reason: "dependency" })
        expect(restartedApi.startedAt).toBeGreaterThanOrEqual((yield* h.sup.get("app/db")).startedAt!)
        // the order the events say: db ready, then api stopping for the dependency
        const order = yield* seen.pipe(
          Stream.filterMap((e): Option.Option<string> => {
            const event = e as SupervisorEvent
            if (event._tag === "ReadinessPassed") return Option.some(`${event.id} ready`)
            if (event._tag === "DaemonStateChanged" && event.to === "stopping")
              return Option.some(`${event.id} stopping (${event.reason})`)
            return Option.none()
          }),
          Stream.take(3),
          Stream.runCollect,
        )
        expect([...order]).toEqual(["app/db stopping (cli)", "app/db ready", "app/api stopping (dependency)"])
        // a restart of a daemon without restart_dependents leaves its dependents alone
        yield* nextMillisecond
        yield* expectSleep(1000, Effect.fork(h.sup.restart("app/cache", undefined, "cli")))
        yield* TestClock.adjust("1 second")
        yield* awaitRuntime(h.sup, "app/cache", (r) => r.status.type === "running" && (r.spawns ?? 0) === 2)
        expect((yield* h.sup.get("app/user")).spawns).toBe(1)
        expect(yield* control.commands).toHaveLength(1)
      }),
  )

  it.scoped("a crash retry of the dependency restarts its dependent too", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const control = yield* makeFakeControl(h.sup)
      yield* followReadiness(control.service, h.sup).pipe(Effect.provideService(EventLog, h.events))
      const dbPid = yield* startReady(
        h.sup,
        definition("db", { restart_dependents: true, retry: 1, ready_delay: 1 }),
      )
      yield* startReady(h.sup, definition("api", { depends: ["app/db"], ready_delay: 1 }))
      yield* nextMillisecond
      yield* expectSleep(1000, h.fake.exit(dbPid, { code: 1 }))
      // the retry after 1 s, then its ready delay of 1 s
      const now = yield* TestClock.currentTimeMillis
      yield* expectSleepUntil(now + 2000, TestClock.adjust("1 second"))
      expect(yield* control.commands).toEqual([])
      yield* TestClock.adjust("1 second")
      yield* awaitRuntime(h.sup, "app/api", (r) => r.status.type === "waiting" && (r.spawns ?? 0) === 2)
      expect(yield* control.commands).toMatchObject([
        { _tag: "RestartDependents", id: "app/db", reason: "dependency" },
      ])
    }),
  )
})
