import { Deferred, Effect, Layer, Ref } from "effect"
import { makeProcessSampler, ProcessSampler, type ProcessSamplerShape } from "../process/ProcessSampler.js"
import type { ProcessReading } from "../process/processTrees.js"

/** What a fake tree uses: resident bytes, CPU seconds since it started, and its lifetime CPU %. */
export interface FakeUsage {
  readonly memoryBytes: number
  readonly cpuSeconds: number
  readonly lifetimeCpuPercent: number
}

export interface FakeProcessSampler {
  readonly layer: Layer.Layer<ProcessSampler>
  readonly service: ProcessSamplerShape
  /** Sets what the tree of `pid` uses from now on (a root never set uses nothing). */
  readonly set: (pid: number, usage: Partial<FakeUsage>) => Effect.Effect<void>
  /** Adds `seconds` of CPU time to the tree of `pid`. */
  readonly burn: (pid: number, seconds: number) => Effect.Effect<void>
  /** The TCP ports `pid` listens on from now on. */
  readonly listen: (pid: number, ports: ReadonlyArray<number>) => Effect.Effect<void>
  /** The roots of every sample asked for, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<ReadonlyArray<number>>>
  /** How many passes the sampler made (answers from its cache are not passes). */
  readonly passes: Effect.Effect<number>
  /**
   * The next sample reads the usage, tells `entered`, then waits for `release` before it
   * returns: what happens to the daemons meanwhile comes after the sample (a slow /proc pass).
   */
  readonly holdNext: (entered: Deferred.Deferred<void>, release: Effect.Effect<void>) => Effect.Effect<void>
}

/**
 * The real sampler (cache, shared CPU windows) over a fake `/proc`: each pid that a sample asks
 * for is one process, alive, using what the test set (nothing when never set).
 */
export const makeFakeProcessSampler = Effect.gen(function* () {
  const usage = new Map<number, FakeUsage>()
  const ports = new Map<number, ReadonlyArray<number>>()
  const alive = new Set<number>()
  let passes = 0
  const calls = yield* Ref.make<ReadonlyArray<ReadonlyArray<number>>>([])
  const hold = yield* Ref.make<Effect.Effect<void> | undefined>(undefined)
  const current = (pid: number): FakeUsage =>
    usage.get(pid) ?? { memoryBytes: 0, cpuSeconds: 0, lifetimeCpuPercent: 0 }
  const real = yield* makeProcessSampler({
    listPids: () => {
      passes++
      return [...alive]
    },
    reader: () => (pid) => {
      if (!alive.has(pid)) return undefined
      const u = current(pid)
      const reading: ProcessReading = { pid, ppid: 1, pgrp: pid, startTime: "1", ...u }
      return reading
    },
    listeningPorts: (groups) =>
      groups.map((pids) => [...new Set(pids.flatMap((pid) => ports.get(pid) ?? []))].sort((a, b) => a - b)),
  })
  const service: ProcessSamplerShape = {
    sample: (roots, options) =>
      Effect.gen(function* () {
        if (roots.length === 0) return new Map()
        yield* Ref.update(calls, (cs) => [...cs, roots])
        for (const pid of roots) alive.add(pid)
        const trees = yield* real.sample(roots, options)
        const held = yield* Ref.getAndSet(hold, undefined)
        if (held !== undefined) yield* held
        return trees
      }),
    listeningPorts: real.listeningPorts,
  }
  const fake: FakeProcessSampler = {
    layer: Layer.succeed(ProcessSampler, service),
    service,
    set: (pid, u) => Effect.sync(() => void usage.set(pid, { ...current(pid), ...u })),
    burn: (pid, seconds) =>
      Effect.sync(
        () => void usage.set(pid, { ...current(pid), cpuSeconds: current(pid).cpuSeconds + seconds }),
      ),
    listen: (pid, p) => Effect.sync(() => void ports.set(pid, p)),
    calls: Ref.get(calls),
    passes: Effect.sync(() => passes),
    holdNext: (entered, release) =>
      Ref.set(hold, Deferred.succeed(entered, undefined).pipe(Effect.zipRight(release))),
  }
  return fake
})
