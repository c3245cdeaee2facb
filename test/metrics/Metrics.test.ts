import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, TestClock } from "effect"
import { LogStore } from "../../src/logs/LogStore.js"
import { Metrics, MetricsLive } from "../../src/metrics/Metrics.js"
import { Supervisor } from "../../src/supervisor/Supervisor.js"
import { makeFakeProcessSampler } from "../../src/testing/FakeProcessSampler.js"
import { makeMemoryLogStore } from "../../src/testing/MemoryLogStore.js"
import { definition, expectSleep, makeHarness, startReady } from "../supervisor/helpers.js"
import { parsePrometheus, sampleValue } from "./prometheus.js"

const WEB = "app/web"

/** The harness's supervisor with the metrics on top: a fake tree sampler, an empty log store. */
const withMetrics = Effect.gen(function* () {
  const h = yield* makeHarness()
  const sampler = yield* makeFakeProcessSampler
  const logs = yield* makeMemoryLogStore({ dir: nodePath.join(h.dir, "metrics-logs") })
  const context = yield* Layer.build(
    MetricsLive.pipe(
      Layer.provide(
        Layer.mergeAll(Layer.succeed(Supervisor, h.sup), Layer.succeed(LogStore, logs.store), sampler.layer),
      ),
    ),
  )
  const scrape = Effect.map(Context.get(context, Metrics).render, parsePrometheus)
  return { h, sampler, scrape, metrics: Context.get(context, Metrics) }
})

describe("Metrics", () => {
  it.scoped("a daemon's status, tree usage, readiness and restarts as the supervisor knows them", () =>
    Effect.gen(function* () {
      const { h, sampler, scrape } = yield* withMetrics
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 5_000_000, cpuSeconds: 1.5 })
      const d = { daemon: WEB }
      const first = yield* scrape
      expect(sampleValue(first, "supervisor_daemon_status", { ...d, status: "running" })).toBe(1)
      expect(sampleValue(first, "supervisor_daemon_resident_memory_bytes", d)).toBe(5_000_000)
      expect(sampleValue(first, "supervisor_daemon_cpu_seconds_total", d)).toBe(1.5)
      expect(sampleValue(first, "supervisor_daemon_restarts_total", d)).toBe(0)
      expect(sampleValue(first, "supervisor_daemon_ready_duration_seconds", d)).toBeGreaterThanOrEqual(0)
      // the metrics' own log store is empty: nothing stored yet
      expect(sampleValue(first, "supervisor_daemon_log_lines_total", d)).toBe(0)

      const restarting = yield* expectSleep(3000, Effect.fork(h.sup.restart(WEB)))
      yield* TestClock.adjust("3 seconds")
      expect((yield* Fiber.join(restarting))._tag).toBe("Ready")
      yield* h.sup.stop(WEB)
      const stopped = yield* scrape
      expect(sampleValue(stopped, "supervisor_daemon_restarts_total", d)).toBe(1)
      expect(sampleValue(stopped, "supervisor_daemon_status", { ...d, status: "stopped" })).toBe(1)
      expect(sampleValue(stopped, "supervisor_daemon_uptime_seconds", d)).toBe(0)
      // no process tree while it does not run
      expect(sampleValue(stopped, "supervisor_daemon_resident_memory_bytes", d)).toBeUndefined()
    }),
  )

  it.scoped("the event-loop delay is measured from the first scrape on", () =>
    Effect.gen(function* () {
      const { scrape } = yield* withMetrics
      const lagMax = "supervisor_event_loop_lag_max_seconds"
      // real timers (libuv runs the earlier due first)
      const realSleep = (ms: number) => Effect.promise(() => new Promise((ok) => setTimeout(ok, ms)))
      // nothing measured before anyone asked: no 100 ms timer woke the supervisor meanwhile
      yield* realSleep(250)
      expect(sampleValue(yield* scrape, lagMax)).toBe(0)
      // past the monitor's first tick, due 100 ms after the scrape
      yield* realSleep(150)
      // the loop held for 300 ms: the monitor's next tick comes that much after the one before
      // (performance.now: Date.now's whole milliseconds could end it up to 1 ms early)
      const until = performance.now() + 301
      while (performance.now() < until) {}
      yield* realSleep(150)
      expect(sampleValue(yield* scrape, lagMax)).toBeGreaterThanOrEqual(0.3)
    }),
  )

  it.scoped("the supervisor's own figures and the requests counted", () =>
    Effect.gen(function* () {
      const { scrape, metrics } = yield* withMetrics
      metrics.countRequest("GET", "/api/daemons", 200)
      const m = yield* scrape
      expect(sampleValue(m, "supervisor_resident_memory_bytes")).toBeGreaterThan(0)
      expect(
        sampleValue(m, "supervisor_event_loop_lag_seconds", { quantile: "0.99" }),
      ).toBeGreaterThanOrEqual(0)
      expect(
        sampleValue(m, "supervisor_http_requests_total", {
          method: "GET",
          route: "/api/daemons",
          code: "200",
        }),
      ).toBe(1)
    }),
  )
})
