import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Ref, TestClock } from "effect"
import { ProcessService, type SpawnRequest } from "../../src/process/ProcessService.js"
import { makeFakeProcessService } from "../../src/testing/FakeProcessService.js"

const request = (id: string): SpawnRequest => ({
  id,
  command: "serve --port 3000",
  shell: ["sh", "-c"],
  cwd: "/srv",
  env: { PORT: "3000" },
  outputFile: "/state/logs/out",
})

describe("FakeProcessService", () => {
  it.effect("records spawns and keeps processes running until the test ends them", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      const svc = yield* ProcessService.pipe(Effect.provide(fake.layer))
      const a = yield* svc.spawn(request("app/a"))
      const b = yield* svc.spawn(request("app/b"))
      expect((yield* Ref.get(fake.spawned)).map((r) => r.id)).toEqual(["app/a", "app/b"])
      expect(yield* fake.running).toEqual([a.pid, b.pid])
      expect(yield* svc.groupMembers(a.pid)).toEqual([a.pid])
      expect(Option.isSome(yield* svc.tree(a.pid))).toBe(true)

      yield* fake.exit(a.pid, { code: 2 })
      expect(yield* a.exit).toEqual({ code: 2, signal: null, known: true })
      expect(yield* fake.running).toEqual([b.pid])
      expect(yield* svc.isAlive(a.pid, a.startTime)).toBe(false)
      expect(yield* svc.groupMembers(a.pid)).toEqual([])
    }),
  )

  it.effect("stop ends the process with the stop signal", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      const handle = yield* fake.service.spawn(request("app/a"))
      expect(yield* fake.service.stop(handle, "SIGINT", "5 seconds")).toEqual({
        code: null,
        signal: "SIGINT",
        known: true,
      })
      expect(yield* Ref.get(fake.signals)).toEqual([{ pgid: handle.pid, signal: "SIGINT" }])
    }),
  )

  it.effect("stop escalates to SIGKILL after the timeout, on the TestClock", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      yield* fake.ignoreNext("SIGTERM")
      const handle = yield* fake.service.spawn(request("app/stubborn"))
      const stopping = yield* Effect.fork(fake.service.stop(handle, "SIGTERM", "10 seconds"))
      yield* TestClock.adjust("9 seconds")
      expect(Option.isNone(yield* Fiber.poll(stopping))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(stopping)).toEqual({ code: null, signal: "SIGKILL", known: true })
      expect((yield* Ref.get(fake.signals)).map((s) => s.signal)).toEqual(["SIGTERM", "SIGKILL"])
    }),
  )

  it.effect("exitNext and failNext script the next spawns", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      yield* fake.failNext("no such directory")
      yield* fake.exitNext({ code: 1 })
      yield* fake.exitNext({ signal: "SIGSEGV" }, { after: "2 seconds" })

      const error = yield* Effect.flip(fake.service.spawn(request("app/a")))
      expect(error.message).toBe("cannot start daemon app/a: no such directory")
      const crashed = yield* fake.service.spawn(request("app/a"))
      expect(yield* crashed.exit).toEqual({ code: 1, signal: null, known: true })
      const later = yield* fake.service.spawn(request("app/a"))
      const waiting = yield* Effect.fork(later.exit)
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(waiting)).toEqual({ code: null, signal: "SIGSEGV", known: true })
      expect(yield* Ref.get(fake.spawned)).toHaveLength(3)
    }),
  )

  it.effect("adopt finds a seeded process by pid and start time; its exit status is unknown", () =>
    Effect.gen(function* () {
      const fake = yield* makeFakeProcessService()
      const previous = yield* fake.seed()
      expect(Option.isNone(yield* fake.service.adopt(previous.pid, "0"))).toBe(true)
      const adopted = Option.getOrThrow(yield* fake.service.adopt(previous.pid, previous.startTime))
      yield* fake.exit(previous.pid, { code: 0 })
      expect(yield* adopted.exit).toEqual({ code: null, signal: null, known: false })
      expect(Option.isNone(yield* fake.service.adopt(previous.pid, previous.startTime))).toBe(true)
    }),
  )
})
