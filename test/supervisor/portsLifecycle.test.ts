import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Ref, TestClock } from "effect"
import type { DaemonState } from "../../src/supervisor/DaemonState.js"
import { daemonUsage } from "../../src/supervisor/resourceUsage.js"
import { makeFakeProcessSampler } from "../../src/testing/FakeProcessSampler.js"
import { awaitHooks, definition, expectSleep, type Harness, makeHarness, startReady } from "./helpers.js"

const WEB = "app/web"
const lastSpawnEnv = (h: Harness) =>
  Ref.get(h.fake.spawned).pipe(Effect.map((rs) => rs[rs.length - 1]?.env ?? {}))

describe("ports: the check before a daemon starts", () => {
  it.scoped("free ports: PORT is the first; runtime, entry and outcome report them", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(definition("web", { port: 3000 }))))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(starting)).toMatchObject({ _tag: "Ready", ports: [3000] })
      const env = yield* lastSpawnEnv(h)
      expect(env.PORT).toBe("3000")
      expect(env.PORT0).toBeUndefined()
      const r = yield* h.sup.get(WEB)
      expect(r.ports).toEqual([3000])
      expect(h.sup.entry(r, false).resolved_port).toEqual([3000])
      expect(h.stateOnDisk().daemons[WEB]?.ports).toEqual([3000])
    }),
  )

  it.scoped("several ports: PORT and PORT0..PORTn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(h.sup, definition("web", { port: [3000, 3001, 9229] }))
      expect(yield* lastSpawnEnv(h)).toMatchObject({
        PORT: "3000",
        PORT0: "3000",
        PORT1: "3001",
        PORT2: "9229",
      })
    }),
  )

  it.scoped(
    "a taken port without bump: the start fails naming the port and its holder; on_fail fires; nothing spawned",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness({
          busyPorts: [3000],
          portHolders: { 3000: { pid: 4321, name: "postgres" } },
        })
        const outcome = yield* h.sup.start(definition("web", { port: 3000, hooks: { on_fail: "alert" } }))
        expect(outcome).toMatchObject({ _tag: "StartFailed", cli_status: 1 })
        expect(outcome._tag === "StartFailed" && outcome.message).toBe(
          "cannot start daemon app/web: port 3000 is already in use by postgres (pid 4321); stop that process, choose another port, or set port.bump = true to shift the ports",
        )
        expect((yield* Ref.get(h.fake.spawned)).length).toBe(0)
        expect((yield* h.sup.get(WEB)).status.type).toBe("failed")
        expect((yield* awaitHooks(h, 1)).map((c) => c.hook)).toEqual(["on_fail"])
      }),
  )

  it.scoped("bump: every port shifts by the same offset until all are free", () =>
    Effect.gen(function* () {
      // Offsets 0 to 4 each hit a busy port (3000, 3002, 3002, 3004, 3004): offset 5 is the first
      // where both are free, and the two ports keep their spacing.
      const h = yield* makeHarness({ busyPorts: [3000, 3002, 3004] })
      const def = definition("web", { port: { expect: [3000, 3001], bump: 5 } })
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(def)))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(starting)).toMatchObject({
        _tag: "Ready",
        ports: [3005, 3006],
        expected_ports: [3000, 3001],
      })
      expect(yield* lastSpawnEnv(h)).toMatchObject({ PORT: "3005", PORT0: "3005", PORT1: "3006" })
      expect(h.sup.entry(yield* h.sup.get(WEB), false).resolved_port).toEqual([3005, 3006])
    }),
  )

  it.scoped("onSpawned: told once the process exists, with the bumped ports; not for a running daemon", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ busyPorts: [3000] })
      const def = definition("web", { port: { expect: [3000], bump: true } })
      const told: Array<{ pid: number | null; ports: ReadonlyArray<number>; status: string }> = []
      const onSpawned = (r: DaemonState) =>
        Effect.sync(() => told.push({ pid: r.pid, ports: r.ports, status: r.status.type }))
      const starting = yield* expectSleep(3000, Effect.fork(h.sup.start(def, { onSpawned })))
      // told before the readiness delay is over: the start is still waiting
      const [proc] = yield* h.fake.processes
      expect(told).toEqual([{ pid: proc!.pid, ports: [3001], status: "waiting" }])
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(starting)).toMatchObject({ _tag: "Ready", ports: [3001] })
      expect(yield* h.sup.start(def, { onSpawned })).toMatchObject({ _tag: "AlreadyRunning" })
      expect(told).toHaveLength(1)
    }),
  )

  it.scoped("bump N exhausted: the start fails and says how many shifts were tried", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ busyPorts: [4000, 4001, 4002] })
      const outcome = yield* h.sup.start(definition("web", { port: { expect: [4000], bump: 2 } }))
      expect(outcome._tag).toBe("StartFailed")
      expect(outcome._tag === "StartFailed" && outcome.message).toMatch(
        /^cannot start daemon app\/web: port 4000 and the next 2 offsets are all in use/,
      )
    }),
  )

  it.scoped("templates render another daemon's resolved (bumped) port", () =>
    Effect.gen(function* () {
      const probed: Array<number> = []
      const h = yield* makeHarness({
        busyPorts: [5432],
        probes: {
          http: () => Effect.succeed({ ok: false, output: "" }),
          cmd: () => Effect.succeed({ ok: false, output: "" }),
          port: (port) =>
            Effect.sync(() => probed.push(port)).pipe(Effect.as({ _tag: "Listening" } as const)),
        },
      })
      yield* startReady(h.sup, definition("db", { port: { expect: [5432], bump: true } }))
      expect((yield* h.sup.get("app/db")).ports).toEqual([5433])
      const outcome = yield* h.sup.start(definition("api", { ready_port: "{{ daemons.db.port }}" }))
      expect(outcome._tag).toBe("Ready")
      expect(probed).toEqual([5433])
    }),
  )

  it.effect("daemonUsage: no entry and no /proc pass when no daemon runs", () =>
    Effect.gen(function* () {
      const sampler = yield* makeFakeProcessSampler
      expect((yield* daemonUsage(sampler.service, [])).size).toBe(0)
      expect(yield* sampler.passes).toBe(0)
    }),
  )
})
