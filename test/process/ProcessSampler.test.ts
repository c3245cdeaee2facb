import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { makeProcessSampler } from "../../src/process/ProcessSampler.js"
import type { ProcessReading } from "../../src/process/processTrees.js"
import type { ProcSource } from "../../src/process/procSource.js"

/** A fake /proc: the test edits `procs`; `read` records every pid read, `passes` every listing. */
const fakeProc = (initial: ReadonlyArray<ProcessReading>) => {
  const state = { procs: [...initial], read: [] as Array<number>, passes: 0 }
  const source: ProcSource = {
    listPids: () => {
      state.passes++
      return state.procs.map((p) => p.pid)
    },
    reader: () => (pid) => {
      state.read.push(pid)
      return state.procs.find((p) => p.pid === pid)
    },
    listeningPorts: (groups) => groups.map(() => []),
  }
  return { state, source }
}

const proc = (
  pid: number,
  ppid: number,
  pgrp: number,
  extra: Partial<ProcessReading> = {},
): ProcessReading => ({
  pid,
  ppid,
  pgrp,
  startTime: String(pid * 10),
  cpuSeconds: 0,
  memoryBytes: 0,
  lifetimeCpuPercent: 0,
  ...extra,
})

const burn = (procs: Array<ProcessReading>, pid: number, seconds: number) => {
  const i = procs.findIndex((p) => p.pid === pid)
  const p = procs[i]!
  procs[i] = { ...p, cpuSeconds: p.cpuSeconds + seconds }
}

describe("ProcessSampler", () => {
  it.effect("a pass lets the event loop run between slices of its reads (events go out meanwhile)", () =>
    Effect.gen(function* () {
      const { state, source } = fakeProc(Array.from({ length: 300 }, (_, i) => proc(1000 + i, 1, 1000 + i)))
      const sampler = yield* makeProcessSampler(source)
      let readWhenTheLoopRan: number | undefined
      setImmediate(() => {
        readWhenTheLoopRan = state.read.length
      })
      const trees = yield* sampler.sample(state.procs.map((p) => p.pid))
      expect(trees.size).toBe(300)
      expect(state.read).toHaveLength(300)
      // the callback ran in the middle of the pass, not before it began nor after it ended
      expect(readWhenTheLoopRan).toBeGreaterThan(0)
      expect(readWhenTheLoopRan).toBeLessThan(300)
    }),
  )
  it.effect("callers within SAMPLE_FRESH share one pass and one CPU figure; later ones a new window", () =>
    Effect.gen(function* () {
      const { state, source } = fakeProc([
        proc(100, 1, 100, { cpuSeconds: 10, lifetimeCpuPercent: 7.04, memoryBytes: 4096 }),
        proc(101, 100, 100, { memoryBytes: 8192 }),
      ])
      const sampler = yield* makeProcessSampler(source)
      // the first pass of a root: its lifetime figure
      const first = (yield* sampler.sample([100])).get(100)!
      expect(first.cpuPercent).toBe(7)
      expect(first.memoryBytes).toBe(12288)
      burn(state.procs, 100, 0.5)
      yield* TestClock.adjust(500)
      // another caller half a second later: the same pass, the same figure
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(7)
      expect(state.passes).toBe(1)
      burn(state.procs, 101, 0.5)
      yield* TestClock.adjust(1500)
      // 1 s of CPU over the 2 s since the first pass, for this caller and the next
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(50)
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(50)
      expect(state.passes).toBe(2)
    }),
  )

  it.effect("a root new within SAMPLE_FRESH forces a pass that keeps the others' figures and windows", () =>
    Effect.gen(function* () {
      const { state, source } = fakeProc([
        proc(100, 1, 100, { cpuSeconds: 1 }),
        proc(200, 1, 200, { lifetimeCpuPercent: 3 }),
      ])
      const sampler = yield* makeProcessSampler(source)
      yield* TestClock.adjust(10_000)
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(0)
      burn(state.procs, 100, 0.1)
      yield* TestClock.adjust(100)
      const both = yield* sampler.sample([100, 200])
      expect(state.passes).toBe(2)
      // not a 100 ms window: the figure of its last window (here its first pass)
      expect(both.get(100)?.cpuPercent).toBe(0)
      expect(both.get(200)?.cpuPercent).toBe(3)
      yield* TestClock.adjust(900)
      // the forced pass is the cache for a second
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(0)
      expect(state.passes).toBe(2)
      yield* TestClock.adjust(1000)
      // the window runs from the first pass: 0.1 s over 2 s
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(5)
    }),
  )

  it.effect("a process that replaced the root (same pid, new start) starts a new window", () =>
    Effect.gen(function* () {
      const { state, source } = fakeProc([proc(100, 1, 100, { cpuSeconds: 50 })])
      const sampler = yield* makeProcessSampler(source)
      yield* sampler.sample([100])
      state.procs = [proc(100, 1, 100, { startTime: "999", cpuSeconds: 1, lifetimeCpuPercent: 25 })]
      yield* TestClock.adjust(2000)
      expect((yield* sampler.sample([100])).get(100)?.cpuPercent).toBe(25)
    }),
  )

  it.effect(
    "reads every process once, then only tree members and new pids; an outsider as root reads all",
    () =>
      Effect.gen(function* () {
        const { state, source } = fakeProc([
          proc(1, 0, 1),
          proc(50, 1, 50),
          proc(100, 1, 100),
          proc(101, 100, 100),
        ])
        const sampler = yield* makeProcessSampler(source)
        expect((yield* sampler.sample([])).size).toBe(0)
        expect(state.passes).toBe(0)
        yield* sampler.sample([100])
        expect(state.read.splice(0)).toEqual([1, 50, 100, 101])
        // a child born since, and an unrelated process: both read once
        state.procs.push(proc(102, 101, 100), proc(60, 1, 60))
        yield* TestClock.adjust(1000)
        expect(
          (yield* sampler.sample([100]))
            .get(100)
            ?.processes.map((p) => p.pid)
            .sort(),
        ).toEqual([100, 101, 102])
        expect(state.read.splice(0).sort()).toEqual([100, 101, 102, 60])
        yield* TestClock.adjust(1000)
        yield* sampler.sample([100])
        expect(state.read.splice(0).sort()).toEqual([100, 101, 102])
        // a root that was read as an outsider: everything is read again
        yield* TestClock.adjust(1000)
        yield* sampler.sample([50])
        expect(state.read.splice(0).sort((a, b) => a - b)).toEqual([1, 50, 60, 100, 101, 102])
      }),
  )

  it.effect("a root nobody asked for in ROOT_KEPT is no longer read; a gone root has no entry", () =>
    Effect.gen(function* () {
      const { state, source } = fakeProc([proc(100, 1, 100), proc(200, 1, 200)])
      const sampler = yield* makeProcessSampler(source)
      yield* sampler.sample([100, 200])
      state.read.length = 0
      for (let i = 0; i < 10; i++) {
        yield* TestClock.adjust(1000)
        yield* sampler.sample([100])
      }
      // 200 was last asked for 10 s ago: read once more as an outsider, then no more
      expect(state.read.slice(-2)).toEqual([100, 200])
      state.read.length = 0
      yield* TestClock.adjust(1000)
      yield* sampler.sample([100])
      expect(state.read).toEqual([100])
      state.procs = state.procs.filter((p) => p.pid !== 100)
      yield* TestClock.adjust(1000)
      expect((yield* sampler.sample([100])).size).toBe(0)
    }),
  )
})
