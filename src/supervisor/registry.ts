import { Effect, Ref, Schema } from "effect"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonRecord } from "../state/State.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { makeChangeCounter } from "./changeCounter.js"
import { type DaemonState, initialState } from "./DaemonState.js"
import { daemonNotFound } from "./errors.js"

const encodeConfig = Schema.encodeSync(DaemonConfig)
// A daemon's configuration is immutable, and the definitions the supervisor starts are made anew
// for each request (`configDefinitions`) around the configuration objects of the loaded (and
// cached) configuration: encode each of those once. Encoding through the schema cost ~1 ms per
// daemon without the optimising compiler, most of the state's cost in a start of 50.
const encodedConfigs = new WeakMap<DaemonConfig, unknown>()

/** `Schema.encodeSync(DaemonDefinition)`, field by field, with each configuration encoded once. */
export const encodeDefinition = (def: DaemonDefinition): typeof DaemonDefinition.Encoded => {
  let config = encodedConfigs.get(def.config)
  if (config === undefined) {
    config = encodeConfig(def.config)
    encodedConfigs.set(def.config, config)
  }
  const { namespace, name, qualified, safe_path } = def.id
  return {
    id: { namespace, name, qualified, safe_path },
    config: config as typeof DaemonConfig.Encoded,
    adhoc: def.adhoc,
    source: def.source,
  }
}

const toRecord = (r: DaemonState): DaemonRecord => ({
  id: r.def.id.qualified,
  definition: encodeDefinition(r.def),
  adhoc: r.def.adhoc,
  status: r.status,
  pid: r.pid,
  start_time: r.startTime,
  started_at: r.startedAt,
  retry_count: r.retryCount,
  ports: r.ports,
})

/**
 * The daemons the supervisor knows, by qualified ID, with a change counter: every update is
 * persisted to the state file and bumps the counter.
 */
export const makeRegistry = (state: StateStoreShape) =>
  Effect.gen(function* () {
    // Changed in place (a copy per change made a start of n daemons cost O(n²)): its readers use
    // it at once, never across a step that could let another fiber run.
    const registry = yield* Ref.make(new Map<string, DaemonState>())
    const version = makeChangeCounter()

    // Recorded, not awaited: the background writer puts it on disk with the changes made
    // meanwhile, and the operations that answer a client (start, stop, adoption, shutdown)
    // `state.sync` before they do. In place too: the writer turns the state into text as soon as
    // it takes it.
    const persist = (r: DaemonState) =>
      state.record((s) => {
        ;(s.daemons as Record<string, DaemonRecord>)[r.def.id.qualified] = toRecord(r)
        return s
      })
    const bump = version.bump
    const update = (id: string, f: (r: DaemonState) => DaemonState) =>
      Effect.gen(function* () {
        const next = yield* Ref.modify(registry, (m) => {
          const current = m.get(id)
          if (!current) return [undefined, m] as const
          const r = f(current)
          // `f` returning the same record means "no change": nothing to persist or announce.
          if (r === current) return [undefined, m] as const
          m.set(id, r)
          return [r, m] as const
        })
        if (next) {
          yield* persist(next)
          yield* bump
        }
      })
    const find = (id: string) =>
      Ref.get(registry).pipe(
        Effect.flatMap((m) => {
          const r = m.get(id)
          return r ? Effect.succeed(r) : Effect.fail(daemonNotFound(id))
        }),
      )
    const register = (def: DaemonDefinition) =>
      Ref.update(registry, (m) => {
        const current = m.get(def.id.qualified)
        return m.set(def.id.qualified, current ? { ...current, def } : initialState(def))
      })

    return { registry, version, bump, update, find, register }
  })

export type Registry = Effect.Effect.Success<ReturnType<typeof makeRegistry>>
