import { Effect, Ref, Schema, SubscriptionRef } from "effect"
import { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonRecord } from "../state/State.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { daemonNotFound } from "./errors.js"
import { initialRuntime, type Runtime } from "./Runtime.js"

const encodeSync = Schema.encodeSync(DaemonDefinition)
// A definition is immutable and each status change persists it again: encode it once.
const encoded = new WeakMap<DaemonDefinition, unknown>()
const encodeDefinition = (def: DaemonDefinition): unknown => {
  let e = encoded.get(def)
  if (e === undefined) {
    e = encodeSync(def)
    encoded.set(def, e)
  }
  return e
}

const toRecord = (r: Runtime): DaemonRecord => ({
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
    const registry = yield* Ref.make(new Map<string, Runtime>())
    const version = yield* SubscriptionRef.make(0)

    const persist = (r: Runtime) =>
      state.update((s) => ({ ...s, daemons: { ...s.daemons, [r.def.id.qualified]: toRecord(r) } }))
    const bump = SubscriptionRef.update(version, (n) => n + 1)
    const update = (id: string, f: (r: Runtime) => Runtime) =>
      Effect.gen(function* () {
        const next = yield* Ref.modify(registry, (m) => {
          const current = m.get(id)
          if (!current) return [undefined, m] as const
          const r = f(current)
          // `f` returning the same record means "no change": nothing to persist or announce.
          if (r === current) return [undefined, m] as const
          return [r, new Map(m).set(id, r)] as const
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
        return new Map(m).set(def.id.qualified, current ? { ...current, def } : initialRuntime(def))
      })

    return { registry, version, bump, update, find, register }
  })

export type Registry = Effect.Effect.Success<ReturnType<typeof makeRegistry>>
