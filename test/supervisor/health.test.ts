import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Ref, Stream, TestClock } from "effect"
import type { EventStreamItem } from "../../src/domain/SupervisorEvent.js"
import type { ReadinessProbesShape } from "../../src/supervisor/readiness/index.js"
import { unfakedProbes } from "../../src/testing/fakes.js"
import {
  awaitHooks,
  awaitSleepUntil,
  awaitSpawns,
  awaitStatus,
  definition,
  makeHarness,
  startReady,
} from "./helpers.js"

const WEB = "app/web"

/** Fake http probes: they answer what the test sets and record the URLs they were asked. */
const makeHttp = Effect.gen(function* () {
  const passing = yield* Ref.make(true)
  const urls = yield* Ref.make<ReadonlyArray<string>>([])
  const probes: ReadinessProbesShape = {
    ...unfakedProbes,
    http: (url) =>
      Ref.update(urls, (u) => [...u, url]).pipe(
        Effect.zipRight(Ref.get(passing)),
        Effect.map((ok) => ({ ok, output: ok ? `GET ${url}: HTTP 200` : `GET ${url}: HTTP 503` })),
      ),
  }
  return { probes, setPassing: (ok: boolean) => Ref.set(passing, ok), urls: Ref.get(urls) }
})

/** Moves the TestClock to `at` (absolute ms) once a fiber sleeps until then. */
const tick = (at: number) =>
  Effect.gen(function* () {
    yield* awaitSleepUntil(at)
    yield* TestClock.adjust(at - (yield* TestClock.currentTimeMillis))
  })

const daemon = (over: Record<string, unknown> = {}) =>
  definition("web", {
    ready_delay: 1,
    health: { http: "http://127.0.0.1:3000/health", interval: "5s", timeout: "1s", failures: 3 },
    hooks: { on_unhealthy: "notify-me" },
    ...over,
  })

const brief = (e: EventStreamItem): string =>
  e._tag === "DaemonStateChanged"
    ? `${e.from}>${e.to} ${e.reason}`
    : e._tag === "AutomationAction"
      ? `${e.source} ${e.action}`
      : e._tag

describe("health checks in the lifecycle", () => {
  it.scoped("`failures` failed checks make the daemon unhealthy; it is restarted with a retry", () =>
    Effect.gen(function* () {
      const http = yield* makeHttp
      const h = yield* makeHarness({ probes: http.probes })
      const events = yield* h.events.open({ since: 0 })
      const first = yield* startReady(h.sup, daemon({ retry: 1 }))
      // ready at 1 s: checks at 6, 11, 16 s
      yield* http.setPassing(false)
      yield* tick(6000)
      yield* tick(11_000)
      yield* tick(16_000)
      yield* awaitStatus(h.sup, WEB, "errored")
      expect((yield* h.sup.get(WEB)).status.message).toBe(
        "unhealthy: health.http (http://127.0.0.1:3000/health) failed 3 times in a row: GET http://127.0.0.1:3000/health: HTTP 503",
      )
      expect(yield* h.logLines(WEB)).toContainEqual(
        expect.stringContaining(
          "unhealthy: health.http (http://127.0.0.1:3000/health) failed 3 times in a row: GET http://127.0.0.1:3000/health: HTTP 503; restarting it (retry 1 of 1)",
        ),
      )
      const [hook] = yield* awaitHooks(h, 1)
      expect(hook).toMatchObject({ hook: "on_unhealthy", run: "notify-me" })
      expect(hook?.env.SUPERVISOR_HEALTH_OUTPUT).toBe("GET http://127.0.0.1:3000/health: HTTP 503")
      // the retry after its backoff (1 s), as after a crash
      yield* http.setPassing(true)
      yield* tick(17_000)
      yield* awaitSpawns(h.fake, 2)
      yield* tick(18_000)
      const again = yield* awaitStatus(h.sup, WEB, "running")
      expect(again.pid).not.toBe(first)
      expect(again.retryCount).toBe(1)
      expect(yield* h.persisted(WEB)).toEqual([
        "waiting",
        "running",
        "unhealthy",
        "errored",
        "waiting",
        "running",
      ])
      const seen = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(events, 10))).map(brief)
      expect(seen).toEqual([
        "available>waiting api",
        "waiting>running ready",
        "ReadinessPassed",
        "running>unhealthy health",
        "health restart",
        "unhealthy>errored health",
        "RetryScheduled",
        "errored>waiting retry",
        "waiting>running ready",
        "ReadinessPassed",
      ])
    }),
  )

  it.scoped("with no retry left it stays unhealthy, checked on, until a check passes", () =>
    Effect.gen(function* () {
      const http = yield* makeHttp
      const h = yield* makeHarness({ probes: http.probes })
      const pid = yield* startReady(h.sup, daemon({ retry: 0 }))
      yield* http.setPassing(false)
      yield* tick(6000)
      yield* tick(11_000)
      yield* tick(16_000)
      const sick = yield* awaitStatus(h.sup, WEB, "unhealthy")
      expect(sick.pid).toBe(pid)
      expect(yield* h.logLines(WEB)).toContainEqual(
        expect.stringContaining(
          "failed 3 times in a row: GET http://127.0.0.1:3000/health: HTTP 503; not restarting: no retry left (retry = 0)",
        ),
      )
      yield* awaitHooks(h, 1)
      // still checked: a pass clears it
      yield* http.setPassing(true)
      yield* tick(21_000)
      const well = yield* awaitStatus(h.sup, WEB, "running")
      expect(well.pid).toBe(pid)
      expect(yield* Ref.get(h.fake.signals)).toEqual([])
      expect(yield* h.logLines(WEB)).toContainEqual(
        expect.stringContaining("healthy again: http check passed"),
      )
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running", "unhealthy", "running"])
    }),
  )

  it.scoped(
    'restart = "always" restarts an unhealthy daemon without a retry; "never" leaves it running',
    () =>
      Effect.gen(function* () {
        const http = yield* makeHttp
        const h = yield* makeHarness({ probes: http.probes })
        const first = yield* startReady(h.sup, daemon({ retry: 0, restart: "always" }))
        yield* http.setPassing(false)
        yield* tick(6000)
        yield* tick(11_000)
        yield* tick(16_000)
        yield* awaitStatus(h.sup, WEB, "errored")
        yield* http.setPassing(true)
        yield* tick(17_000)
        yield* awaitSpawns(h.fake, 2)
        yield* tick(18_000)
        const again = yield* awaitStatus(h.sup, WEB, "running")
        expect(again.pid).not.toBe(first)
        expect(yield* h.logLines(WEB)).not.toContainEqual(expect.stringContaining("not restarting"))

        const never = yield* makeHarness({ probes: http.probes })
        const pid = yield* startReady(never.sup, daemon({ retry: 3, restart: "never" }))
        yield* http.setPassing(false)
        const at = yield* TestClock.currentTimeMillis
        yield* tick(at + 5000)
        yield* tick(at + 10_000)
        yield* tick(at + 15_000)
        const sick = yield* awaitStatus(never.sup, WEB, "unhealthy")
        expect(sick.pid).toBe(pid)
        expect(yield* never.logLines(WEB)).toContainEqual(
          expect.stringContaining('HTTP 503; not restarting: restart = "never"'),
        )
      }),
  )

  it.scoped("the check's templates render like readiness checks; it stops with the daemon", () =>
    Effect.gen(function* () {
      const http = yield* makeHttp
      const h = yield* makeHarness({ probes: http.probes })
      yield* startReady(
        h.sup,
        daemon({
          port: 4321,
          health: { http: "http://127.0.0.1:{{ daemons.web.port }}/up", interval: "5s" },
        }),
      )
      yield* tick(6000)
      yield* awaitSleepUntil(11_000)
      expect(yield* http.urls).toEqual(["http://127.0.0.1:4321/up"])
      yield* h.sup.stop(WEB, "cli")
      yield* TestClock.adjust("1 minute")
      expect(yield* http.urls).toEqual(["http://127.0.0.1:4321/up"])
    }),
  )
})
