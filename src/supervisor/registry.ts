import { Effect, Schema, SubscriptionRef } from "effect"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonRecord } from "../state/State.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { type DaemonState, initialState } from "./DaemonState.js"
import { daemonNotFound } from "./errors.js"

const encodeConfig = Schema.encodeSync(DaemonConfig)
// A daemon's configuration is immutable, and the definitions the supervisor starts are made anew
// for each request (`configDefinitions`) around the configuration objects of the loaded (and
// cached) configuration: encode each of those once, not on every state write.
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
 * The daemons the supervisor knows, by qualified ID. Every change is published to `changes` and
 * persisted to the state file (recorded, not awaited: the background writer puts it on disk with
 * the changes made meanwhile, and what answers a client `state.sync`s first).
 */
export const makeRegistry = (state: StateStoreShape) =>
  Effect.gen(function* () {
    const ref = yield* SubscriptionRef.make<ReadonlyMap<string, DaemonState>>(new Map())

    const persist = (r: DaemonState) =>
      state.record((s) => {
        // in place: the writer turns the state into text as soon as it takes it
        ;(s.daemons as Record<string, DaemonRecord>)[r.def.id.qualified] = toRecord(r)
        return s
      })
    const all = SubscriptionRef.get(ref)
    const current = (id: string) => Effect.map(all, (m) => m.get(id))
    /** Applies `f` to the daemon's record; `f` returning its argument means "no change". */
    const update = (id: string, f: (r: DaemonState) => DaemonState) =>
      SubscriptionRef.modify(
        ref,
        (m): readonly [DaemonState | undefined, ReadonlyMap<string, DaemonState>] => {
          const r = m.get(id)
          const next = r === undefined ? undefined : f(r)
          return next === undefined || next === r ? [undefined, m] : [next, new Map(m).set(id, next)]
        },
      ).pipe(Effect.flatMap((next) => (next === undefined ? Effect.void : Effect.asVoid(persist(next)))))
    /** Puts a record as it is (adoption); persisted unless it comes from the state file unchanged. */
    const put = (r: DaemonState, persisted = true) =>
      SubscriptionRef.update(ref, (m) => new Map(m).set(r.def.id.qualified, r)).pipe(
        Effect.zipRight(persisted ? persist(r) : Effect.void),
        Effect.asVoid,
      )
    const find = (id: string) =>
      Effect.flatMap(all, (m) => {
        const r = m.get(id)
        return r ? Effect.succeed(r) : Effect.fail(daemonNotFound(id))
      })
    /** Records the definition a daemon starts with (a fresh record for a daemon it does not know). */
    const register = (def: DaemonDefinition) =>
      SubscriptionRef.update(ref, (m) => {
        const r = m.get(def.id.qualified)
        return new Map(m).set(def.id.qualified, r ? { ...r, def } : initialState(def))
      })
    const remove = (id: string) =>
      SubscriptionRef.update(ref, (m) => {
        const next = new Map(m)
        next.delete(id)
        return next
      })
    /** Announces a change that is not in the records (the disabled list). */
    const touch = SubscriptionRef.update(ref, (m) => new Map(m))

    return { all, current, update, put, find, register, remove, touch, changes: ref.changes }
  })

export type Registry = Effect.Effect.Success<ReturnType<typeof makeRegistry>>
