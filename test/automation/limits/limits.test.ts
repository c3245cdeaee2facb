import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Layer, Ref, Schema, SubscriptionRef, TestClock } from "effect"
import { Limits, LimitsLive } from "../../../src/automation/limits/Limits.js"
import { Settings } from "../../../src/domain/Settings.js"
import { LiveSettings, liveSettingsOf } from "../../../src/registry/liveSettings.js"
import { Supervisor } from "../../../src/supervisor/Supervisor.js"
import { makeFakeControl } from "../../../src/testing/FakeControl.js"
import { type FakeProcessSampler, makeFakeProcessSampler } from "../../../src/testing/FakeProcessSampler.js"
import {
  awaitHooks,
  awaitRuntime,
  awaitSleepUntil,
  awaitStatus,
  definition,
  type Harness,
  makeGate,
  makeHarness,
  startReady,
} from "../../supervisor/helpers.js"

const WEB = "app/web"
const MB = 1000 ** 2

/**
 * The harness's supervisor with the limit checks on top (a fake sampler); `tick()` moves the
 * TestClock to the next check and returns once it has run (the loop sleeps again). The settings
 * are live: `setSettings` changes them as an edited global config file would.
 */
const withLimits = (options: { readonly settings?: Record<string, unknown> } = {}) =>
  Effect.gen(function* () {
    const settingsInput = options.settings ?? {}
    const h = yield* makeHarness({ settings: settingsInput })
    const sampler = yield* makeFakeProcessSampler
    // the limits send their kills as commands: a Control that records them
    const control = yield* makeFakeControl(h.sup)
    const settings = Schema.decodeUnknownSync(Settings)(settingsInput)
    const live = yield* SubscriptionRef.make(settings)
    const interval = Duration.toMillis(settings.general.interval)
    const first = yield* TestClock.currentTimeMillis
    const context = yield* Layer.build(
      LimitsLive.pipe(
        Layer.provide(
          Layer.mergeAll(
            Layer.succeed(Supervisor, h.sup),
            Layer.succeed(LiveSettings, liveSettingsOf(live)),
            sampler.layer,
            control.layer,
          ),
        ),
      ),
    )
    expect(Context.get(context, Limits).check).toBeDefined()
    let next = first + interval
    const tick = Effect.gen(function* () {
      const now = yield* TestClock.currentTimeMillis
      // checks that passed while the test moved the clock (a ready delay) have run
      while (next <= now) next += interval
      yield* awaitSleepUntil(next)
      yield* TestClock.adjust(next - now)
      next += interval
      yield* awaitSleepUntil(next)
    })
    /** Moves the clock by `millis`, staying before the next check. */
    const adjust = (millis: number) => TestClock.adjust(millis)
    const setSettings = (input: Record<string, unknown>) =>
      SubscriptionRef.set(live, Schema.decodeUnknownSync(Settings)(input))
    return { h, sampler, tick, adjust, setSettings, control }
  })

const killedLines = (h: Harness) =>
  h.logLines(WEB).pipe(Effect.map((ls) => ls.filter((l) => l.startsWith("[supervisor] killed:"))))

/** `seconds` of CPU over the next 10 s interval: `seconds * 10` percent of one core. */
const burn = (sampler: FakeProcessSampler, pid: number, seconds: number) => sampler.burn(pid, seconds)

describe("memory limit", () => {
  it.scoped("over memory_limit: killed, errored with the message, a retry used, then on_fail", () =>
    Effect.gen(function* () {
      const { h, sampler, tick, adjust, control } = yield* withLimits()
      const def = definition("web", {
        memory_limit: "80MB",
        retry: 1,
        hooks: { on_fail: "echo fail" },
      })
      const pid = yield* startReady(h.sup, def)
      yield* sampler.set(pid, { memoryBytes: 70 * MB })
      yield* tick
      expect((yield* h.sup.get(WEB)).status.type).toBe("running")
      yield* sampler.set(pid, { memoryBytes: 161.2 * MB })
      yield* tick
      const message = "killed: memory 161.2 MB over memory_limit 80 MB"
      const killed = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored")
      expect(killed.status.message).toBe(message)
      expect(killed.retryPending).toBe(true)
      expect(yield* Ref.get(h.fake.signals)).toEqual([{ pgid: pid, signal: "SIGTERM" }])
      expect(yield* killedLines(h)).toEqual([`[supervisor] ${message}`])
      // asked of Control as a Kill command of the sampled process, not of the supervisor directly
      expect(
        (yield* control.commands).map((c) =>
          c._tag === "Kill" ? [c.id, c.pid, c.reason, c.message] : c._tag,
        ),
      ).toEqual([[WEB, pid, "limit", message]])
      // the retry: a new process, one retry used
      yield* adjust(1000)
      const retried = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting")
      expect(retried.retryCount).toBe(1)
      yield* adjust(3000)
      yield* awaitStatus(h.sup, WEB, "running")
      // over again: no retry left, it stays errored and on_fail fires
      yield* sampler.set(retried.pid as number, { memoryBytes: 90 * MB })
      yield* tick
      const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
      expect(r.status.message).toBe("killed: memory 90.0 MB over memory_limit 80 MB")
      expect((yield* awaitHooks(h, 1)).map((x) => x.hook)).toContain("on_fail")
      expect(yield* h.fake.running).toEqual([])
    }),
  )

  it.scoped("without retries: killed once, errored, on_fail fires; a binary limit is reported in MiB", () =>
    Effect.gen(function* () {
      const { h, sampler, tick } = yield* withLimits()
      const pid = yield* startReady(
        h.sup,
        definition("web", { memory_limit: "64MiB", hooks: { on_fail: "echo fail" } }),
      )
      yield* sampler.set(pid, { memoryBytes: 100 * 1024 ** 2 })
      yield* tick
      const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
      expect(r.status.message).toBe("killed: memory 100.0 MiB over memory_limit 64 MiB")
      expect((yield* awaitHooks(h, 1)).map((x) => x.hook)).toEqual(["on_fail"])
      expect(yield* Ref.get(h.fake.spawned)).toHaveLength(1)
    }),
  )

  it.scoped("a daemon under its limits is sampled at every tick and never killed", () =>
    Effect.gen(function* () {
      const { h, sampler, tick } = yield* withLimits()
      const pid = yield* startReady(h.sup, definition("web", { memory_limit: "80MB", cpu_limit: 50 }))
      yield* sampler.set(pid, { memoryBytes: 79 * MB })
      for (let i = 0; i < 5; i++) {
        yield* burn(sampler, pid, 4.9) // 49%
        yield* tick
      }
      expect((yield* h.sup.get(WEB)).status.type).toBe("running")
      expect(yield* Ref.get(h.fake.signals)).toEqual([])
      expect(yield* sampler.calls).toEqual([[pid], [pid], [pid], [pid], [pid]])
    }),
  )

  it.scoped("a daemon without limits is never sampled; nothing is read when none has a limit", () =>
    Effect.gen(function* () {
      const { h, sampler, tick } = yield* withLimits()
      const pid = yield* startReady(h.sup, definition("web"))
      yield* sampler.set(pid, { memoryBytes: 10_000 * MB })
      yield* tick
      yield* tick
      expect(yield* sampler.calls).toEqual([])
      expect((yield* h.sup.get(WEB)).status.type).toBe("running")
      // a second daemon with a limit: only its tree is sampled
      const other = yield* startReady(h.sup, definition("api", { memory_limit: "1GB" }))
      yield* tick
      expect(yield* sampler.calls).toEqual([[other]])
    }),
  )

  it.scoped("never killed twice: a daemon that is stopping is not sampled again", () =>
    Effect.gen(function* () {
      // checks every second, while the group takes its 5 s stop timeout to die
      const { h, sampler, tick } = yield* withLimits({ settings: { general: { interval: "1s" } } })
      yield* h.fake.ignoreNext("SIGTERM")
      const pid = yield* startReady(h.sup, definition("web", { memory_limit: "80MB" }))
      // sampled while it waited for readiness (a check each second), under the limit
      const before = (yield* sampler.calls).length
      expect(before).toBeGreaterThan(0)
      yield* sampler.set(pid, { memoryBytes: 200 * MB })
      yield* tick
      yield* awaitStatus(h.sup, WEB, "stopping")
      for (let i = 0; i < 4; i++) yield* tick
      expect((yield* h.sup.get(WEB)).status.type).toBe("stopping")
      yield* tick
      yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
      yield* tick
      expect(yield* Ref.get(h.fake.signals)).toEqual([
        { pgid: pid, signal: "SIGTERM" },
        { pgid: pid, signal: "SIGKILL" },
      ])
      expect(yield* killedLines(h)).toHaveLength(1)
      // the one sample that found it over; none while it stopped, none once errored
      expect((yield* sampler.calls).length).toBe(before + 1)
    }),
  )
})

describe("a sample and a restart", () => {
  it.scoped("a sample of the old process, taken before a restart, does not kill the new one", () =>
    Effect.gen(function* () {
      const start = yield* TestClock.currentTimeMillis
      const { h, sampler } = yield* withLimits()
      const old = yield* startReady(h.sup, definition("web", { memory_limit: "80MB" }))
      yield* sampler.set(old, { memoryBytes: 200 * MB })
      // the check reads the old process over its limit; a watch restart lands before it judges
      const gate = yield* makeGate
      const entered = yield* Deferred.make<void>()
      yield* sampler.holdNext(entered, gate.wait)
      yield* awaitSleepUntil(start + 10_000)
      yield* TestClock.adjust(start + 10_000 - (yield* TestClock.currentTimeMillis))
      yield* Deferred.await(entered)
      expect(yield* h.sup.restartIfRunning(WEB, "watch")).toBe(true)
      const fresh = yield* h.sup.get(WEB)
      expect(fresh.pid).not.toBe(old)
      yield* gate.open
      yield* awaitSleepUntil(start + 20_000)
      // a kill, had there been one, is forked: let it run (the fake stops a process at once)
      yield* Effect.repeatN(Effect.yieldNow(), 500)
      // the new process was not killed for the old one's sample
      expect(yield* Ref.get(h.fake.signals)).toEqual([{ pgid: old, signal: "SIGTERM" }])
      expect(yield* killedLines(h)).toEqual([])
      const r = yield* h.sup.get(WEB)
      expect(r.pid).toBe(fresh.pid)
      expect(r.status.type).toBe("waiting")
      expect(yield* h.fake.running).toEqual([fresh.pid])
    }),
  )
})

describe("cpu limit", () => {
  it.scoped(
    "killed after cpu_violation_threshold samples in a row above it; one below resets the count",
    () =>
      Effect.gen(function* () {
        const { h, sampler, tick } = yield* withLimits()
        const pid = yield* startReady(h.sup, definition("web", { cpu_limit: 50 }))
        yield* tick // the first sample is the baseline
        for (const seconds of [8, 8, 2, 8, 8]) {
          yield* burn(sampler, pid, seconds)
          yield* tick
        }
        // 80, 80, 20 (reset), 80, 80: two in a row, not three
        expect((yield* h.sup.get(WEB)).status.type).toBe("running")
        yield* burn(sampler, pid, 18.7)
        yield* tick
        const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
        expect(r.status.message).toBe("killed: cpu 187% over cpu_limit 50% for 3 samples")
        expect(yield* killedLines(h)).toEqual([`[supervisor] ${r.status.message}`])
      }),
  )

  it.scoped("an interval shorter than the sampler's cache: each check still gets a pass of its own", () =>
    Effect.gen(function* () {
      const { h, sampler, tick } = yield* withLimits({ settings: { general: { interval: "400ms" } } })
      const pid = yield* startReady(h.sup, definition("web", { cpu_limit: 50 }))
      yield* tick // the baseline
      const before = yield* sampler.passes
      for (let i = 0; i < 3; i++) {
        yield* burn(sampler, pid, 0.32) // 80% of 400 ms
        yield* tick
      }
      const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored" && !r.retryPending)
      expect(r.status.message).toBe("killed: cpu 80% over cpu_limit 50% for 3 samples")
      expect((yield* sampler.passes) - before).toBe(3)
    }),
  )

  it.scoped("a pass another caller took just before a check serves it; one older does not", () =>
    Effect.gen(function* () {
      const { h, sampler, tick, adjust } = yield* withLimits()
      const pid = yield* startReady(h.sup, definition("web", { cpu_limit: 50 }))
      yield* tick // the baseline
      const before = yield* sampler.passes
      yield* adjust(9500)
      yield* sampler.service.sample([pid]) // `list`, half a second before the check
      yield* tick
      expect((yield* sampler.passes) - before).toBe(1)
      yield* adjust(5000)
      yield* sampler.service.sample([pid]) // five seconds before: too old for the check
      yield* burn(sampler, pid, 8)
      yield* tick
      expect((yield* sampler.passes) - before).toBe(3)
      // 8 s of CPU over the 10 s between the checks' passes
      expect((yield* h.sup.get(WEB)).status.type).toBe("running")
    }),
  )

  it.scoped("the threshold is a setting; the count starts again when the daemon restarts", () =>
    Effect.gen(function* () {
      const { h, sampler, tick, adjust } = yield* withLimits({
        settings: { supervisor: { cpu_violation_threshold: 2 } },
      })
      const pid = yield* startReady(h.sup, definition("web", { cpu_limit: 50 }))
      yield* tick
      yield* burn(sampler, pid, 9)
      yield* tick // one violation
      // a restart: a new process, a new count
      yield* Effect.fork(h.sup.restart(WEB))
      const fresh = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "waiting" && r.pid !== pid)
      yield* adjust(3000)
      yield* awaitStatus(h.sup, WEB, "running")
      const next = fresh.pid as number
      yield* sampler.set(next, { cpuSeconds: 100 }) // its baseline, whatever it used before
      yield* tick
      yield* burn(sampler, next, 9)
      yield* tick
      expect((yield* h.sup.get(WEB)).status.type).toBe("running")
      yield* burn(sampler, next, 9)
      yield* tick
      const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored")
      expect(r.status.message).toBe("killed: cpu 90% over cpu_limit 50% for 2 samples")
    }),
  )

  it.scoped("general.interval and the CPU threshold follow the settings in force, without a restart", () =>
    Effect.gen(function* () {
      const { h, sampler, setSettings } = yield* withLimits()
      const start = yield* TestClock.currentTimeMillis
      // the check sleeps 10 s; the interval becomes 2 s: the wait is re-timed from the last check
      yield* awaitSleepUntil(start + 10_000)
      yield* setSettings({ general: { interval: "2s" }, supervisor: { cpu_violation_threshold: 1 } })
      yield* awaitSleepUntil(start + 2000)
      const pid = yield* startReady(h.sup, definition("web", { cpu_limit: 50 }))
      const at = yield* TestClock.currentTimeMillis
      // checks every 2 s from then on
      const next = start + Math.ceil((at - start + 1) / 2000) * 2000
      yield* awaitSleepUntil(next)
      yield* TestClock.adjust(next - at)
      yield* awaitSleepUntil(next + 2000)
      expect((yield* sampler.calls).length).toBeGreaterThan(0)
      // one sample over the limit is enough now (threshold 1)
      yield* burn(sampler, pid, 9)
      yield* TestClock.adjust(2000)
      const r = yield* awaitRuntime(h.sup, WEB, (r) => r.status.type === "errored")
      expect(r.status.message).toBe("killed: cpu 450% over cpu_limit 50% for 1 sample")
    }),
  )
})
