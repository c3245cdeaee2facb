/** What the watch tests share: a fake backend, the default timing, a configurable watch service. */
import { Duration, Effect, Ref, SubscriptionRef } from "effect"
import type { Backend, BackendEvents, BackendOptions } from "../../../src/automation/watch/fileWatcher.js"
import type { WatchTiming } from "../../../src/automation/watch/spec.js"
import { type ConfiguredWatch, configuredSpecs, makeWatch } from "../../../src/automation/watch/Watch.js"
import type { DaemonDefinition } from "../../../src/domain/DaemonDefinition.js"
import { type Harness, makeHarness } from "../../supervisor/helpers.js"

export const WEB = "app/web"
/** The default settings: a 1 s debounce, polling every 500 ms. */
export const TIMING: WatchTiming = { debounce: Duration.seconds(1), pollInterval: Duration.millis(500) }

export interface FakeWatcher {
  readonly roots: ReadonlyArray<string>
  readonly options: BackendOptions
  readonly on: BackendEvents
  closed: boolean
}

/** A backend that records what it is asked to watch and lets the test report changes. */
export const fakeBackend = () => {
  const watchers: Array<FakeWatcher> = []
  const backend: Backend = (roots, options, on) => {
    const w: FakeWatcher = { roots, options, on, closed: false }
    watchers.push(w)
    on.ready()
    return {
      close: async () => {
        w.closed = true
      },
    }
  }
  const open = () => watchers.filter((w) => !w.closed)
  /** Waits (yielding, bounded) until `n` watchers are open; returns them. */
  const awaitOpen = (n: number) =>
    Effect.gen(function* () {
      for (let turn = 0; turn < 20_000; turn++) {
        if (open().length === n) return open()
        yield* Effect.yieldNow()
      }
      return yield* Effect.dieMessage(`expected ${n} open watchers, got ${open().length}`)
    })
  return { backend, watchers, open, awaitOpen }
}

export const spawns = (h: Harness) => Ref.get(h.fake.spawned).pipe(Effect.map((s) => s.length))

/** Watch fed by a configuration the test edits: definitions, and the timing of each daemon. */
export const configurable = (options: { readonly backend?: Backend } = {}) =>
  Effect.gen(function* () {
    const h = yield* makeHarness()
    const fake = fakeBackend()
    const notes: Array<string> = []
    const configured = yield* SubscriptionRef.make<ConfiguredWatch>({
      definitions: new Map(),
      timing: () => TIMING,
    })
    yield* makeWatch(configuredSpecs(h.sup, configured.changes), {
      restart: (id, detail) => h.sup.restartIfRunning(id, "watch", undefined, detail).pipe(Effect.ignore),
      note: (id, text) => Effect.sync(() => void notes.push(`${id}: ${text}`)),
      problem: h.sup.setWatchProblem,
      backend: options.backend ?? fake.backend,
      stateDir: undefined,
    })
    const setTiming = (timing: WatchTiming) =>
      SubscriptionRef.update(configured, (c) => ({ ...c, timing: () => timing }))
    const setDefinitions = (...defs: ReadonlyArray<DaemonDefinition>) =>
      SubscriptionRef.update(configured, (c) => ({
        ...c,
        definitions: new Map(defs.map((d) => [d.id.qualified, d])),
      }))
    return { h, fake, notes, setTiming, setDefinitions }
  })
