// esbuild plugin: Effect's fiber runs each operation inside its tracer's `context`, passing it a
// closure made for that operation. With Effect's own tracer (`nativeTracer`, the default, which
// the supervisor keeps) that `context` only calls the closure, so the closure is garbage and
// nothing else: ~10% of what a start or a stop of 50 daemons allocates, whose young-generation
// collections were the larger part of a stop's main-thread time (docs/benchmarks.md, a stop of
// 50). Here a fiber with the native tracer runs the operation directly; any other tracer (or an
// operation of another Effect version, which the closure warns of) goes through `context` as before.
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]effect[\\/]dist[\\/]esm[\\/]internal[\\/]fiberRuntime\.js$/

export const directOps = sourcePatch({
  name: "direct-ops",
  target,
  find: `        // @ts-expect-error
        cur = this.currentTracer.context(() => {`,
  replace: `        cur = this.currentTracer === tracer.nativeTracer && _version === cur[core.EffectTypeId]._V ? this[cur._op](cur) : this.currentTracer.context(() => {`,
})
