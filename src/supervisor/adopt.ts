import { Effect, Either, Option, Schema } from "effect"
import { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { FollowOptions, LogStoreShape } from "../logs/LogStore.js"
import type { ProcessHandle, ProcessServiceShape } from "../process/ProcessService.js"
import type { StateStoreShape } from "../state/StateStore.js"
import { initialState, isActive } from "./DaemonState.js"
import { type FoundProcess, findDaemonProcesses, outputFileKey } from "./orphans.js"
import type { Registry } from "./registry.js"

const decodeDefinition = Schema.decodeUnknownEither(DaemonDefinition)

/** What adopting a previous supervisor's daemons needs from the supervisor. */
export interface AdoptDeps {
  readonly state: StateStoreShape
  readonly processes: ProcessServiceShape
  readonly logs: LogStoreShape
  readonly registry: Registry
  /** Starts the lifecycle of a daemon around its adopted process. */
  readonly adopt: (def: DaemonDefinition, handle: ProcessHandle, attempt: number) => Effect.Effect<void>
  /** Resumes a daemon's retries: retry `attempt + 1` after the backoff, when it has one left. */
  readonly resume: (def: DaemonDefinition, attempt: number, message: string) => Effect.Effect<void>
  /** Stops a daemon (a stop the previous supervisor did not finish). */
  readonly stop: (id: string) => Effect.Effect<unknown, unknown>
  /** How the daemon's output is stored (its log_format). */
  readonly followOptions?: (def: DaemonDefinition) => FollowOptions
  /** The live daemon processes of the log directory (default: found in /proc). */
  readonly found?: Effect.Effect<ReadonlyArray<FoundProcess>>
  /**
   * `settings.supervisor.orphan_policy`: `adopt` the daemons that still run (the default), or
   * `kill` them: taken back, then stopped as a stop does (stop signal, timeout, hooks).
   */
  readonly policy?: "adopt" | "kill"
}

/** Takes back what a previous supervisor left running: same PID and start time, or it is gone. */
export const adoptPrevious = ({
  state,
  processes,
  logs,
  registry,
  adopt,
  resume,
  stop,
  followOptions,
  found = Effect.sync(() => findDaemonProcesses(logs.dir)),
  policy = "adopt",
}: AdoptDeps) =>
  Effect.gen(function* () {
    const s = yield* state.get
    // Every live daemon process, by output file: those the state file does not name were spawned
    // by a supervisor that died before it wrote them down.
    const byFile = new Map<string, Array<FoundProcess>>()
    for (const p of yield* found) byFile.set(p.outputFile, [...(byFile.get(p.outputFile) ?? []), p])
    const claim = (id: string) =>
      logs.paths(id).pipe(
        Effect.map(({ rawPath }) => {
          const key = outputFileKey(rawPath)
          const mine = byFile.get(key) ?? []
          byFile.delete(key)
          return mine
        }),
        Effect.orElseSucceed((): ReadonlyArray<FoundProcess> => []),
      )
    /** Ends a daemon process of a daemon nobody knows: nothing could stop it later. */
    const end = (p: FoundProcess, why: string) =>
      Effect.zipRight(
        processes.signalGroup(p.pid, "SIGKILL"),
        Effect.logWarning(`stopped pid ${p.pid} (output ${p.outputFile}): ${why}`),
      )
    for (const record of Object.values(s.daemons)) {
      const decoded = decodeDefinition(record.definition)
      if (Either.isLeft(decoded)) {
        yield* Effect.logWarning(`forgetting ${record.id}: its saved definition is unreadable`)
        // its processes (if any) run on as before: nothing is known of how to stop them
        yield* claim(record.id)
        yield* state.update((st) => {
          const daemons = { ...st.daemons }
          delete daemons[record.id]
          return { ...st, daemons }
        })
        continue
      }
      const def = decoded.right
      const recorded = {
        ...initialState(def),
        status: record.status,
        startedAt: record.started_at,
        retryCount: record.retry_count,
        ports: record.ports,
      }
      const recordedHandle =
        isActive(record) && record.pid !== null && record.start_time !== null
          ? yield* processes.adopt(record.pid, record.start_time)
          : Option.none()
      const live = yield* claim(record.id)
      /** Tracks `handle` (pid `pid`) as the daemon's running process, and follows its log. */
      const track = (pid: number, startTime: string, handle: ProcessHandle, note: string) =>
        Effect.gen(function* () {
          yield* registry.put({ ...recorded, status: { type: "running" }, pid, startTime, handle, spawns: 1 })
          yield* logs.follow(record.id, followOptions?.(def)).pipe(Effect.ignore)
          yield* adopt(def, handle, record.retry_count)
          yield* Effect.logInfo(`adopted ${record.id} (pid ${pid}${note})`)
          if (policy === "kill") {
            yield* Effect.logInfo(`stopping ${record.id}: settings.supervisor.orphan_policy is "kill"`)
            yield* Effect.forkDaemon(stop(record.id).pipe(Effect.ignore))
          }
        })
      // Without a live recorded process, the oldest unrecorded one is the daemon (the state
      // write of its spawn was lost). Later ones are its descendants in sessions of their own
      // (`setsid`): theirs to run, left alone as before.
      const unrecorded = live.filter((p) => Option.isNone(recordedHandle) || p.pid !== record.pid)
      const oldest = [...unrecorded].sort((a, b) => Number(a.startTime) - Number(b.startTime))[0]
      const found =
        Option.isNone(recordedHandle) && oldest !== undefined
          ? yield* processes.adopt(oldest.pid, oldest.startTime)
          : Option.none()
      if (Option.isSome(found) && oldest !== undefined) {
        yield* track(
          oldest.pid,
          oldest.startTime,
          found.value,
          ", spawned just before the previous supervisor died",
        )
        continue
      }
      const handle = recordedHandle
      if (Option.isSome(handle) && record.pid !== null && record.start_time !== null) {
        yield* track(record.pid, record.start_time, handle.value, "")
        // It was being stopped when the previous supervisor died: finish the stop.
        if (record.status.type === "stopping" && policy === "adopt")
          yield* Effect.forkDaemon(stop(record.id).pipe(Effect.ignore))
      } else if (record.status.type === "stopping") {
        // it was being stopped, and is gone: stopped
        yield* registry.put({ ...recorded, status: { type: "stopped", exit_code: null, signal: null } })
      } else if (isActive(record)) {
        // It died while no supervisor ran: a crash, whose exit status nobody could see.
        const message = "exited while the supervisor was not running; its exit status is unknown"
        yield* registry.put({
          ...recorded,
          status: { type: "errored", exit_code: null, signal: null, message },
        })
        yield* resume(def, record.retry_count, `${record.id} ${message}`)
      } else if (record.retry_pending) {
        yield* registry.put({ ...recorded, retryPending: true }, false)
        yield* resume(def, record.retry_count, `${record.id} ${record.status.message ?? "failed"}`)
      } else yield* registry.put(recorded, false)
    }
    for (const ps of byFile.values())
      for (const p of ps) yield* end(p, "a daemon the state file does not know")
    yield* state.sync
  })
