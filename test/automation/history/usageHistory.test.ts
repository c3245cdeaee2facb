import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
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
      expect(snap.interval_ms).toBe(2000)
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

  it.scoped("the live layer samples nothing until asked, then every 2 s on the clock", () =>
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
      for (let i = 0; i < 3; i++) {
        const now = yield* TestClock.currentTimeMillis
        // the loop's next sleep ends within 2 s of now: move the clock to it
        const sleeps = (yield* TestClock.sleeps()).pipe((c) => [...c])
        const next = Math.min(...sleeps.filter((t) => t > now && t <= now + 2000))
        yield* awaitSleepUntil(next)
        yield* TestClock.adjust(next - now)
      }
      const samples = yield* samplesOf(history, "app/web")
      expect(samples.length).toBe(before + 3)
      expect(samples.at(-1)?.memory_bytes).toBe(7 * MB)
    }),
  )
})
