import { Deferred, Effect, Layer, Ref } from "effect"
import { type TreeSample, TreeSampler } from "../automation/limits/trees.js"

/** What a fake tree uses: resident bytes, and CPU seconds since it started. */
export interface FakeUsage {
  readonly memoryBytes: number
  readonly cpuSeconds: number
}

export interface FakeTreeSampler {
  readonly layer: Layer.Layer<TreeSampler>
  /** Sets what the tree of `pid` uses from now on (a root never set uses nothing). */
  readonly set: (pid: number, usage: Partial<FakeUsage>) => Effect.Effect<void>
  /** Adds `seconds` of CPU time to the tree of `pid`. */
  readonly burn: (pid: number, seconds: number) => Effect.Effect<void>
  /** The roots of every sample taken, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<ReadonlyArray<number>>>
  /**
   * The next sample reads the usage, tells `entered`, then waits for `release` before it
   * returns: what happens to the daemons meanwhile comes after the sample (a slow /proc pass).
   */
  readonly holdNext: (entered: Deferred.Deferred<void>, release: Effect.Effect<void>) => Effect.Effect<void>
}

/** A TreeSampler that reads nothing: each root is one process using what the test set. */
export const makeFakeTreeSampler = Effect.gen(function* () {
  const usage = yield* Ref.make<ReadonlyMap<number, FakeUsage>>(new Map())
  const calls = yield* Ref.make<ReadonlyArray<ReadonlyArray<number>>>([])
  const hold = yield* Ref.make<Effect.Effect<void> | undefined>(undefined)
  const current = (m: ReadonlyMap<number, FakeUsage>, pid: number): FakeUsage =>
    m.get(pid) ?? { memoryBytes: 0, cpuSeconds: 0 }
  const update = (pid: number, f: (u: FakeUsage) => FakeUsage) =>
    Ref.update(usage, (m) => new Map([...m, [pid, f(current(m, pid))]]))
  const fake: FakeTreeSampler = {
    layer: Layer.succeed(TreeSampler, {
      sample: (roots) =>
        Effect.gen(function* () {
          if (roots.length === 0) return new Map<number, TreeSample>()
          yield* Ref.update(calls, (cs) => [...cs, roots])
          const m = yield* Ref.get(usage)
          const held = yield* Ref.getAndSet(hold, undefined)
          if (held !== undefined) yield* held
          return new Map(
            roots.map((pid) => {
              const u = current(m, pid)
              return [
                pid,
                { memoryBytes: u.memoryBytes, processes: [{ pid, key: `${pid}`, cpuSeconds: u.cpuSeconds }] },
              ]
            }),
          )
        }),
    }),
    set: (pid, u) => update(pid, (old) => ({ ...old, ...u })),
    burn: (pid, seconds) => update(pid, (old) => ({ ...old, cpuSeconds: old.cpuSeconds + seconds })),
    calls: Ref.get(calls),
    holdNext: (entered, release) =>
      Ref.set(hold, Deferred.succeed(entered, undefined).pipe(Effect.zipRight(release))),
  }
  return fake
})
