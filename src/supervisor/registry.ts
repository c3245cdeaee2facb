import { Effect, PubSub, Schema, Stream } from "effect"
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
    // an instance stays one across a supervisor restart (its daemon, its index)
    ...(def.instance === undefined
      ? {}
      : { instance: { daemon: def.instance.daemon, index: def.instance.index } }),
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
  retry_pending: r.retryPending,
  ports: r.ports,
})

/**
 * The daemons the supervisor knows, by qualified ID. Every change is announced on `changes` and
 * persisted to the state file (recorded, not awaited: the background writer puts it on disk with
 * the changes made meanwhile, and what answers a client `state.sync`s first).
 */
export const makeRegistry = (state: StateStoreShape) =>
  Effect.gen(function* () {
    // Changed in place, never copied: a daemon's record is written only by its own lifecycle,
    // one step at a time (and by adoption, before any lifecycle runs). Readers use it at once.
    const records = new Map<string, DaemonState>()
    // "Something changed": whoever listens looks again (a sliding PubSub of one: changes made
    // while a listener was busy are seen as one).
    const changed = yield* PubSub.sliding<void>(1)
    const announce = PubSub.publish(changed, undefined)

    const persist = (r: DaemonState) => state.recordDaemon(r.def.id.qualified, toRecord(r))
    const set = (r: DaemonState) => Effect.sync(() => records.set(r.def.id.qualified, r))
    const all: Effect.Effect<ReadonlyMap<string, DaemonState>> = Effect.sync(() => records)
    const current = (id: string) => Effect.sync(() => records.get(id))
    /** Applies `f` to the daemon's record; `f` returning its argument means "no change". */
    const update = (id: string, f: (r: DaemonState) => DaemonState) =>
      Effect.suspend(() => {
        const r = records.get(id)
        const next = r === undefined ? r : f(r)
        if (next === undefined || next === r) return Effect.void
        records.set(id, next)
        return Effect.zipRight(persist(next), announce)
      })
    /** Puts a record as it is (adoption); persisted unless it comes from the state file unchanged. */
    const put = (r: DaemonState, persisted = true) =>
      set(r).pipe(
        Effect.zipRight(persisted ? persist(r) : Effect.void),
        Effect.zipRight(announce),
        Effect.asVoid,
      )
    const find = (id: string) =>
      Effect.suspend(() => {
        const r = records.get(id)
        return r ? Effect.succeed(r) : Effect.fail(daemonNotFound(id))
      })
    /** Records the definition a daemon starts with (a fresh record for a daemon it does not know). */
    const register = (def: DaemonDefinition) =>
      Effect.suspend(() => {
        const r = records.get(def.id.qualified)
        return set(r ? { ...r, def } : initialState(def))
      }).pipe(Effect.zipRight(announce))
    const remove = (id: string) => Effect.sync(() => records.delete(id)).pipe(Effect.zipRight(announce))
    /** Announces a change that is not in the records (the disabled list). */
    const touch = Effect.asVoid(announce)
    /** The records now, then again after each change (subscribed first: no change is missed). */
    const changes: Stream.Stream<ReadonlyMap<string, DaemonState>> = Stream.unwrapScoped(
      Effect.map(PubSub.subscribe(changed), (sub) =>
        Stream.concat(Stream.succeed(records), Stream.fromQueue(sub).pipe(Stream.as(records))),
      ),
    )

    return { all, current, update, put, find, register, remove, touch, changes }
  })

export type Registry = Effect.Effect.Success<ReturnType<typeof makeRegistry>>
