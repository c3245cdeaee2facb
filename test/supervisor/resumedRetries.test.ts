import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Ref, Scope, TestClock } from "effect"
import type { PersistentState } from "../../src/state/State.js"
import { makeFakeProcessService } from "../../src/testing/FakeProcessService.js"
import {
  awaitHooks,
  awaitRuntime,
  awaitSleepUntil,
  definition,
  encodeDefinition,
  expectSleep,
  makeHarness,
  startReady,
} from "./helpers.js"

const WEB = "app/web"

describe("retries across a supervisor restart", () => {
  it.scoped(
    "a retry pending when the supervisor stops is kept in the state file and resumed by the next one",
    () =>
      Effect.gen(function* () {
        const fake = yield* makeFakeProcessService()
        const scope = yield* Scope.make()
        const first = yield* Scope.extend(makeHarness({ fake }), scope)
        const def = definition("web", { retry: 3 })
        const pid = yield* startReady(first.sup, def)
        yield* expectSleep(1000, fake.exit(pid, { code: 4 }))
        yield* first.sup.stopAll
        const saved: PersistentState = first.stateOnDisk()
        expect(saved.daemons[WEB]).toMatchObject({
          status: { type: "errored", exit_code: 4 },
          retry_pending: true,
          retry_count: 0,
        })
        yield* Scope.close(scope, Exit.void)

        // the next supervisor, on the same state: the retry comes after a backoff, counted as the first
        const second = yield* makeHarness({ fake, initialState: saved })
        expect((yield* second.sup.get(WEB)).status.type).toBe("errored")
        yield* awaitSleepUntil((yield* TestClock.currentTimeMillis) + 1000)
        yield* TestClock.adjust("1 second")
        const resumed = yield* awaitRuntime(second.sup, WEB, (r) => r.status.type === "waiting")
        expect(resumed.retryCount).toBe(1)
        expect((yield* Ref.get(fake.spawned)).map((r) => r.env.SUPERVISOR_RETRY_COUNT)).toEqual(["0", "1"])
      }),
  )

  it.scoped(
    "a retry-pending record without retries left is given up at once: errored, on_exit (fail) and on_fail",
    () =>
      Effect.gen(function* () {
        const def = definition("web", { retry: 1, hooks: { on_exit: "echo exit", on_fail: "echo fail" } })
        const h = yield* makeHarness({
          initialState: {
            version: 1,
            cron: {},
            scaled: {},
            daemons: {
              [WEB]: {
                id: WEB,
                definition: encodeDefinition(def),
                adhoc: false,
                status: { type: "errored", exit_code: 2, signal: null, message: "exited with code 2" },
                pid: null,
                start_time: null,
                started_at: 1_700_000_000_000,
                ports: [],
                retry_count: 1,
                retry_pending: true,
              },
            },
            disabled: [],
            namespaces: {},
            projects: [],
          },
        })
        const hooks = yield* awaitHooks(h, 2)
        expect(hooks.map((x) => x.hook)).toEqual(["on_exit", "on_fail"])
        const r = yield* awaitRuntime(h.sup, WEB, (x) => !x.retryPending)
        expect(r.status).toMatchObject({ type: "errored", exit_code: 2 })
        yield* TestClock.adjust("10 minutes")
        expect(yield* Ref.get(h.fake.spawned)).toEqual([])
      }),
  )

  it.scoped(
    "a stop during the backoff ends the daemon's runs: stopped, on_exit once (reason stop), no on_stop",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness()
        const def = definition("web", { retry: 2, hooks: { on_exit: "echo exit", on_stop: "echo stop" } })
        const pid = yield* startReady(h.sup, def)
        yield* expectSleep(1000, h.fake.exit(pid, { code: 4 }))
        expect(yield* h.hooks).toEqual([])
        expect(yield* h.sup.stop(WEB)).toBe(false)
        const [exit] = yield* awaitHooks(h, 1)
        expect(exit!.hook).toBe("on_exit")
        expect(exit!.env.SUPERVISOR_EXIT_REASON).toBe("stop")
        expect(exit!.env.SUPERVISOR_EXIT_CODE).toBe("4")
        expect((yield* h.sup.get(WEB)).status).toEqual({ type: "stopped", message: "stopped" })
        yield* TestClock.adjust("10 minutes")
        expect((yield* h.hooks).length).toBe(1)
      }),
  )
})
