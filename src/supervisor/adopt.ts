import { Effect, Either, Option, Ref, Schema } from "effect"
import { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import type { ProcessHandle, ProcessServiceShape } from "../process/ProcessService.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { type DaemonState, initialState, isActive } from "./DaemonState.js"
import type { DaemonNotFound } from "./errors.js"
import type { Registry } from "./registry.js"

const decodeDefinition = Schema.decodeUnknownEither(DaemonDefinition)

/** What adopting a previous supervisor's daemons needs from the supervisor. */
export interface AdoptDeps {
  readonly state: StateStoreShape
  readonly processes: ProcessServiceShape
  readonly logs: LogStoreShape
  readonly registry: Registry
  /** Forks the lifecycle fiber of a daemon, here around its adopted process. */
  readonly launch: (def: DaemonDefinition, adopted: Option.Option<ProcessHandle>) => Effect.Effect<unknown>
  readonly stop: (id: string) => Effect.Effect<boolean, DaemonNotFound>
}

/** Takes back what a previous supervisor left running: same PID and start time, or it is gone. */
export const adoptPrevious = ({ state, processes, logs, registry: reg, launch, stop }: AdoptDeps) =>
  Effect.gen(function* () {
    const { registry, update, bump } = reg
    const s = yield* state.get
    for (const record of Object.values(s.daemons)) {
      const decoded = decodeDefinition(record.definition)
      if (Either.isLeft(decoded)) {
        yield* Effect.logWarning(`forgetting ${record.id}: its saved definition is unreadable`)
        yield* state.update((st) => {
          const daemons = { ...st.daemons }
          delete daemons[record.id]
          return { ...st, daemons }
        })
        continue
      }
      const def = decoded.right
      const runtime: DaemonState = {
        ...initialState(def),
        status: record.status,
        startedAt: record.started_at,
        retryCount: record.retry_count,
        ports: record.ports,
      }
      yield* Ref.update(registry, (m) => m.set(record.id, runtime))
      if (!isActive(record) || record.pid === null || record.start_time === null) continue
      const handle = yield* processes.adopt(record.pid, record.start_time)
      if (Option.isSome(handle)) {
        yield* Ref.update(registry, (m) =>
          m.set(record.id, {
            ...runtime,
            status: { type: "running" },
            pid: record.pid,
            startTime: record.start_time,
            handle: handle.value,
          }),
        )
        yield* logs.follow(record.id).pipe(Effect.ignore)
        yield* launch(def, handle)
        yield* Effect.logInfo(`adopted ${record.id} (pid ${record.pid})`)
        // It was being stopped when the previous supervisor died: finish the stop.
        if (record.status.type === "stopping") yield* Effect.forkDaemon(stop(record.id).pipe(Effect.ignore))
      } else {
        yield* update(record.id, (r) => ({
          ...r,
          status: {
            type: "stopped",
            exit_code: null,
            signal: null,
            message: "exited while the supervisor was not running",
          },
          pid: null,
          startTime: null,
        }))
      }
    }
    yield* bump
    yield* state.sync
  })
