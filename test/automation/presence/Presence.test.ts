// The presence rules with fakes and the TestClock: entering starts `auto = ["start"]` daemons;
// the last one out stops `auto = ["stop"]` ones after the delay; coming back cancels; a second
// shell keeps them; a dead or reused pid counts as gone.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import {
  type AutoDaemon,
  makePresence,
  type PresenceDeps,
} from "../../../src/automation/presence/Presence.js"

const world = (daemons: ReadonlyArray<AutoDaemon>) => {
  const processes = new Map<number, string>([
    [100, "t100"],
    [200, "t200"],
  ])
  const running = new Set<string>()
  const log: Array<string> = []
  const deps: PresenceDeps = {
    startTime: (pid) => processes.get(pid),
    know: () => Effect.void,
    autoDaemons: Effect.succeed(daemons),
    isRunning: (id) => Effect.sync(() => running.has(id)),
    start: (ids) =>
      Effect.sync(() => {
        for (const id of ids) {
          running.add(id)
          log.push(`start ${id}`)
        }
      }),
    stop: (id) =>
      Effect.sync(() => {
        running.delete(id)
        log.push(`stop ${id}`)
      }),
  }
  return { deps, processes, running, log }
}

const api: AutoDaemon = { id: "app/api", dir: "/p/app", start: true, stop: true, delay: Duration.seconds(60) }
const worker: AutoDaemon = { ...api, id: "app/worker", start: false }

/** Lets the forked starts and stops run. */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
})

describe("Presence", () => {
  it.scoped("entering starts auto-start daemons that are not running, not auto-stop-only ones", () =>
    Effect.gen(function* () {
      const w = world([api, worker])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app/src")
      yield* settle
      expect(w.log).toEqual(["start app/api"])
      // moving inside the project starts nothing again
      w.running.delete("app/api")
      yield* p.shellCd(100, "/p/app")
      yield* settle
      expect(w.log).toEqual(["start app/api"])
    }),
  )

  it.scoped("leaving stops after the delay, not before, and reports it once", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      yield* settle
      yield* p.shellCd(100, "/p/other")
      yield* TestClock.adjust("59 seconds")
      yield* settle
      expect(w.running.has("app/api")).toBe(true)
      expect(yield* p.pendingStops).toEqual(["app/api"])
      yield* TestClock.adjust("1 second")
      yield* settle
      expect(w.log).toEqual(["start app/api", "stop app/api"])
      expect(yield* p.takeNotices).toEqual(["autostopped app/api"])
      expect(yield* p.takeNotices).toEqual([])
    }),
  )

  it.scoped("a delay of 0s stops at once", () =>
    Effect.gen(function* () {
      const w = world([{ ...api, delay: Duration.zero }])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      yield* settle
      yield* p.shellCd(100, "/p")
      yield* settle
      expect(w.log).toEqual(["start app/api", "stop app/api"])
    }),
  )

  it.scoped("coming back within the delay cancels the stop", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      yield* p.shellCd(100, "/tmp")
      yield* TestClock.adjust("30 seconds")
      yield* p.shellCd(100, "/p/app/lib")
      yield* TestClock.adjust("2 minutes")
      yield* settle
      expect(w.log).toEqual(["start app/api"])
      expect(yield* p.pendingStops).toEqual([])
    }),
  )

  it.scoped("a second shell still inside keeps the daemon; a session counts as a shell", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      yield* p.enter(200, "/p/app")
      yield* p.shellCd(100, "/tmp")
      yield* TestClock.adjust("5 minutes")
      yield* settle
      expect(w.running.has("app/api")).toBe(true)
      const left = yield* p.leave(200, undefined)
      expect(left.map((o) => o.directory)).toEqual(["/p/app"])
      yield* TestClock.adjust("1 minute")
      yield* settle
      expect(w.running.has("app/api")).toBe(false)
    }),
  )

  it.scoped("a shell whose pid died counts as gone (periodic sweep)", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      w.processes.delete(100)
      yield* TestClock.adjust("2 seconds") // the sweep
      yield* settle
      expect(yield* p.list).toEqual([])
      yield* TestClock.adjust("1 minute")
      yield* settle
      expect(w.log).toEqual(["start app/api", "stop app/api"])
    }),
  )

  it.scoped("a reused pid (another start time) counts as gone", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/p/app")
      w.processes.set(100, "another")
      expect(yield* p.list).toEqual([])
      yield* TestClock.adjust("1 minute")
      yield* settle
      expect(w.running.has("app/api")).toBe(false)
    }),
  )

  it.scoped("a session of a process that is not running is refused", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      const error = yield* Effect.flip(p.enter(999, "/p/app"))
      expect(error._tag).toBe("ProcessGone")
      expect(w.log).toEqual([])
    }),
  )

  it.scoped("a daemon started by hand is not stopped while nobody left its project", () =>
    Effect.gen(function* () {
      const w = world([api])
      w.running.add("app/api")
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/tmp")
      const sleeper = yield* Effect.fork(TestClock.adjust("10 minutes"))
      yield* Fiber.join(sleeper)
      yield* settle
      expect(w.log).toEqual([])
    }),
  )

  it.scoped("a late report of an earlier cd is ignored: the shell stays where its last cd took it", () =>
    Effect.gen(function* () {
      const w = world([{ ...api, delay: Duration.zero }])
      const p = yield* makePresence(w.deps)
      // the hook ran at 1000 (outside) then at 2000 (inside); the reports arrive the other way round
      yield* p.shellCd(100, "/p/app", 2000)
      yield* settle
      yield* p.shellCd(100, "/home/me", 1000)
      yield* settle
      expect((yield* p.list).map((o) => o.directory)).toEqual(["/p/app"])
      expect(w.log).toEqual(["start app/api"])
      expect(yield* p.pendingStops).toEqual([])
      // the same report again (a retry) and a later one both count
      yield* p.shellCd(100, "/p/app", 2000)
      yield* p.shellCd(100, "/home/me", 3000)
      yield* settle
      expect((yield* p.list).map((o) => o.directory)).toEqual(["/home/me"])
      expect(w.log).toEqual(["start app/api", "stop app/api"])
    }),
  )

  it.scoped("the stamp belongs to the shell: another process reusing its pid starts afresh", () =>
    Effect.gen(function* () {
      const w = world([api])
      const p = yield* makePresence(w.deps)
      yield* p.shellCd(100, "/tmp", 5000)
      w.processes.set(100, "another")
      yield* p.shellCd(100, "/p/app", 10)
      expect((yield* p.list).map((o) => o.directory)).toEqual(["/p/app"])
    }),
  )
})
