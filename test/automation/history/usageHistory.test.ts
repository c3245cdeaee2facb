import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Exit, Fiber, Layer, Option, Scope, Stream, TestClock } from "effect"
import {
  HISTORY_CAPACITY,
  makeUsageHistory,
  UsageHistory,
  UsageHistoryLive,
} from "../../../src/automation/history/UsageHistory.js"
import { Supervisor } from "../../../src/supervisor/Supervisor.js"
import { makeFakeProcessSampler } from "../../../src/testing/FakeProcessSampler.js"
import {
  awaitSleepUntil,
  awaitStatus,
  definition,
  makeHarness,
  startReady,
} from "../../supervisor/helpers.js"

const MB = 1000 ** 2

/** The harness's supervisor with a usage history over a fake sampler; `loop` also runs its 2 s loop. */
const withHistory = (loop: boolean) =>
  Effect.gen(function* () {
    const h = yield* makeHarness()
    const sampler = yield* makeFakeProcessSampler
    const deps = Layer.merge(Layer.succeed(Supervisor, h.sup), sampler.layer)
    const layer = loop ? UsageHistoryLive : Layer.effect(UsageHistory, makeUsageHistory)
    const context = yield* Layer.build(layer.pipe(Layer.provide(deps)))
    return { h, sampler, history: Context.get(context, UsageHistory) }
  })

const samplesOf = (history: Context.Tag.Service<UsageHistory>, id: string) =>
  Effect.map(history.snapshot, (s) => s.daemons.find((d) => d.id === id)?.samples ?? [])

/** Yields until `id` has `n` samples (the loop's fiber runs meanwhile); dies after 20,000 turns. */
const awaitSampled = (history: Context.Tag.Service<UsageHistory>, id: string, n: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* samplesOf(history, id)).length >= n) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`${id} never had ${n} samples`)
  })

/** Yields until the sampler made `n` passes; dies after 20,000 turns. */
const awaitPasses = (sampler: { readonly passes: Effect.Effect<number> }, n: number) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 20_000; turn++) {
      if ((yield* sampler.passes) >= n) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`never ${n} passes`)
  })

describe("usage history", () => {
  it.scoped("keeps each running daemon's CPU (change since the last sample) and memory, with times", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(false)
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 10 * MB, cpuSeconds: 100 })
      yield* history.sampleNow
      const t0 = yield* TestClock.currentTimeMillis
      yield* TestClock.adjust(2000)
      yield* sampler.burn(pid, 1) // 1 s of CPU over 2 s: 50 %
      yield* sampler.set(pid, { memoryBytes: 12 * MB })
      yield* history.sampleNow
      const snap = yield* history.snapshot
      expect(snap.interval_ms).toBe(5000)
      expect(snap.capacity).toBe(60)
      expect(yield* samplesOf(history, "app/web")).toEqual([
        { at: t0, cpu_percent: 0, memory_bytes: 10 * MB },
        { at: t0 + 2000, cpu_percent: 50, memory_bytes: 12 * MB },
      ])
    }),
  )

  it.scoped("keeps the last HISTORY_CAPACITY samples only, oldest first", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(false)
      const pid = yield* startReady(h.sup, definition("web"))
      for (let i = 0; i < HISTORY_CAPACITY + 5; i++) {
        yield* sampler.set(pid, { memoryBytes: i })
        yield* history.sampleNow
        yield* TestClock.adjust(2000)
      }
      const samples = yield* samplesOf(history, "app/web")
      expect(samples).toHaveLength(HISTORY_CAPACITY)
      expect(samples[0]?.memory_bytes).toBe(5)
      expect(samples.at(-1)?.memory_bytes).toBe(HISTORY_CAPACITY + 4)
    }),
  )

  it.scoped("a stopped daemon keeps its samples but gets no new ones; a removed one is forgotten", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(false)
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: MB })
      yield* history.sampleNow
      yield* h.sup.stop("app/web")
      yield* awaitStatus(h.sup, "app/web", "stopped")
      yield* history.sampleNow
      expect(yield* samplesOf(history, "app/web")).toHaveLength(1)
      expect(yield* h.sup.clean(["app/web"])).toEqual(["app/web"])
      yield* history.sampleNow
      expect((yield* history.snapshot).daemons).toEqual([])
    }),
  )

  it.scoped("a new run starts its CPU anew: the old run's CPU seconds are not subtracted", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(false)
      const first = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(first, { cpuSeconds: 500 })
      yield* history.sampleNow
      yield* h.sup.stop("app/web")
      yield* awaitStatus(h.sup, "app/web", "stopped")
      const second = yield* startReady(h.sup, definition("web"))
      expect(second).not.toBe(first)
      yield* sampler.set(second, { cpuSeconds: 3 })
      yield* TestClock.adjust(2000)
      yield* history.sampleNow
      expect((yield* samplesOf(history, "app/web")).map((s) => s.cpu_percent)).toEqual([0, 0])
    }),
  )

  it.scoped("a sample gives every running daemon's CPU, memory, port and uptime to the live streams", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(false)
      const before = Date.now()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 3 * MB, cpuSeconds: 10 })
      yield* sampler.listen(pid, [8080])
      yield* history.sampleNow
      yield* TestClock.adjust(5000)
      yield* sampler.burn(pid, 1) // 1 s of CPU over 5 s: 20 %
      const first = yield* Effect.fork(Stream.runHead(history.live))
      // a sample before the stream subscribed reaches nobody: sample until it got one
      let given = yield* history.sampleNow
      while (Option.isNone(yield* Fiber.poll(first))) {
        yield* Effect.yieldNow()
        given = yield* history.sampleNow
      }
      expect(yield* Fiber.join(first)).toEqual(Option.some(given))
      expect(given).toMatchObject({ _tag: "UsageSampled", interval_ms: 5000 })
      // the history's sample: what the page's sparklines add
      expect(given.at).toBe((yield* samplesOf(history, "app/web")).at(-1)?.at)
      expect(given.daemons).toEqual([
        {
          id: "app/web",
          pid,
          cpu_percent: 20,
          memory_bytes: 3 * MB,
          active_port: 8080,
          uptime_secs: expect.any(Number),
        },
      ])
      // the run's wall-clock age, as the listing has it
      const uptime = given.daemons[0]?.uptime_secs ?? -1
      expect(uptime).toBeGreaterThanOrEqual(0)
      expect(uptime).toBeLessThanOrEqual(Math.floor((Date.now() - before) / 1000))
    }),
  )

  /** Moves the clock to the loop's next sleep (within 5 s of now). */
  const nextTick = Effect.gen(function* () {
    const now = yield* TestClock.currentTimeMillis
    const sleeps = (yield* TestClock.sleeps()).pipe((c) => [...c])
    const next = Math.min(...sleeps.filter((t) => t > now && t <= now + 5000))
    yield* awaitSleepUntil(next)
    yield* TestClock.adjust(next - now)
  })

  it.scoped("the live layer samples nothing until asked, then every 5 s on the clock", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(true)
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 7 * MB })
      // nobody asked yet: no pass, however long the supervisor runs
      yield* TestClock.adjust(60_000)
      expect(yield* sampler.calls).toEqual([])
      // the first ask starts the passes: the first one at once
      expect(yield* samplesOf(history, "app/web")).toEqual([])
      yield* awaitSampled(history, "app/web", 1)
      const before = (yield* samplesOf(history, "app/web")).length
      for (let i = 0; i < 3; i++) yield* nextTick
      const samples = yield* samplesOf(history, "app/web")
      expect(samples.length).toBe(before + 3)
      expect(samples.at(-1)?.memory_bytes).toBe(7 * MB)
    }),
  )

  it.scoped("the live layer samples while a live stream is open, and a minute after the last ask", () =>
    Effect.gen(function* () {
      const { h, sampler, history } = yield* withHistory(true)
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 5 * MB })
      // a live stream open: a sample at once, then every 5 s
      const scope = yield* Scope.make()
      const pull = yield* Stream.toPull(history.live).pipe(Scope.extend(scope))
      expect(Chunk.toReadonlyArray(yield* pull)[0]?.daemons[0]?.memory_bytes).toBe(5 * MB)
      yield* nextTick
      expect(Chunk.size(yield* pull)).toBe(1)
      // closed, and nobody asked for the history: the passes stop
      yield* Scope.close(scope, Exit.void)
      yield* nextTick
      const passes = yield* sampler.passes
      yield* TestClock.adjust(600_000)
      expect(yield* sampler.passes).toBe(passes)
      // an ask of the history: passes again, for a minute
      yield* history.snapshot
      yield* awaitPasses(sampler, passes + 1)
      for (let i = 0; i < 11; i++) yield* nextTick
      const last = yield* sampler.passes
      expect(last).toBe(passes + 12)
      yield* TestClock.adjust(600_000)
      expect(yield* sampler.passes).toBe(last)
    }),
  )
})
