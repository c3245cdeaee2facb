import * as fs from "node:fs"
import {
  Context,
  Deferred,
  Effect,
  Either,
  Fiber,
  FiberMap,
  Layer,
  Option,
  Ref,
  Schedule,
  Schema,
  Stream,
  SubscriptionRef,
} from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { LogStore } from "../logs/LogStore.js"
import { type ProcessHandle, ProcessService } from "../process/ProcessService.js"
import type { DaemonRecord } from "../state/State.js"
import { StateStore } from "../state/StateStore.js"
import { shellArgv } from "./environment.js"
import { type DaemonNotFound, daemonNotFound } from "./errors.js"
import { type LifecycleContext, lifecycle, type ReadinessRun } from "./lifecycle.js"
import { stopLevels } from "./order.js"
import { initialRuntime, isActive, type Runtime } from "./Runtime.js"
import {
  liveProbes,
  type ReadinessCheck,
  ReadinessProbes,
  readinessChecks,
  renderChecks,
  waitUntilReady,
} from "./readiness/index.js"
import { SupervisorConfig } from "./SupervisorConfig.js"

export interface StartOptions {
  /** Restart the daemon if it is already running. */
  readonly force?: boolean
}

export interface SupervisorShape {
  /** Starts a daemon and waits until it is ready, has completed, or failed. */
  readonly start: (def: DaemonDefinition, options?: StartOptions) => Effect.Effect<StartOutcome>
  /** Stops a daemon (its whole process group); false when it was not running. */
  readonly stop: (id: string) => Effect.Effect<boolean, DaemonNotFound>
  readonly restart: (id: string, def?: DaemonDefinition) => Effect.Effect<StartOutcome, DaemonNotFound>
  readonly enable: (id: string) => Effect.Effect<boolean>
  readonly disable: (id: string) => Effect.Effect<boolean>
  readonly get: (id: string) => Effect.Effect<Runtime, DaemonNotFound>
  readonly list: Effect.Effect<ReadonlyArray<Runtime>>
  readonly isDisabled: (id: string) => Effect.Effect<boolean>
  readonly disabledIds: Effect.Effect<ReadonlyArray<string>>
  /** Waits until the daemon is neither starting nor running; its last exit status. */
  readonly wait: (id: string) => Effect.Effect<Runtime, DaemonNotFound>
  /** Forgets daemons that are not running; returns their IDs. */
  readonly clean: (ids?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Stops every daemon, dependents before their dependencies. */
  readonly stopAll: Effect.Effect<void>
  /** Emits whenever any daemon changes (a counter). */
  readonly changes: Stream.Stream<number>
  readonly entry: (r: Runtime, disabled: boolean) => ApiDaemonEntry
}

export class Supervisor extends Context.Tag("supervisor/Supervisor")<Supervisor, SupervisorShape>() {}

const encodeDefinition = Schema.encodeSync(DaemonDefinition)
const decodeDefinition = Schema.decodeUnknownEither(DaemonDefinition)

const toRecord = (r: Runtime): DaemonRecord => ({
  id: r.def.id.qualified,
  definition: encodeDefinition(r.def),
  adhoc: r.def.adhoc,
  status: r.status,
  pid: r.pid,
  start_time: r.startTime,
  started_at: r.startedAt,
  retry_count: r.retryCount,
})

export const makeSupervisor = Effect.gen(function* () {
  const processes = yield* ProcessService
  const logs = yield* LogStore
  const state = yield* StateStore
  const config = yield* SupervisorConfig
  const probes = Option.getOrElse(yield* Effect.serviceOption(ReadinessProbes), () => liveProbes)
  const registry = yield* Ref.make(new Map<string, Runtime>())
  const version = yield* SubscriptionRef.make(0)
  const fibers = yield* FiberMap.make<string>()
  const locks = new Map<string, Effect.Semaphore>()
  const withLock = (id: string) => {
    let lock = locks.get(id)
    if (!lock) {
      lock = Effect.unsafeMakeSemaphore(1)
      locks.set(id, lock)
    }
    return lock.withPermits(1)
  }

  const persist = (r: Runtime) =>
    state.update((s) => ({ ...s, daemons: { ...s.daemons, [r.def.id.qualified]: toRecord(r) } }))
  const bump = SubscriptionRef.update(version, (n) => n + 1)
  const update = (id: string, f: (r: Runtime) => Runtime) =>
    Effect.gen(function* () {
      const next = yield* Ref.modify(registry, (m) => {
        const current = m.get(id)
        if (!current) return [undefined, m] as const
        const r = f(current)
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

  /**
   * Waits (at most 2 s) until the log follower has indexed every complete line the daemon
   * wrote: a daemon that printed why it failed and exited at once has its last lines shown.
   */
  const indexedAll = (id: string) =>
    Effect.gen(function* () {
      const { rawPath } = yield* logs.paths(id)
      const caughtUp = Effect.gen(function* () {
        const size = yield* Effect.try(() => fs.statSync(rawPath).size)
        const indexed = (yield* logs.stats(id)).endOffset
        return indexed >= size
      })
      yield* caughtUp.pipe(
        Effect.repeat({ schedule: Schedule.spaced("25 millis"), until: (done) => done }),
        Effect.timeout("2 seconds"),
      )
    }).pipe(Effect.ignore)

  /** Renders the checks' templates with the ports of the daemons the supervisor knows. */
  const prepareReadiness = (def: DaemonDefinition, run: ReadinessRun) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const known = yield* Ref.get(registry)
      const rendered = renderChecks(readinessChecks(def.config), def.id.namespace, (other) => {
        const r = known.get(other)
        return r === undefined ? undefined : { port: r.def.config.port?.expect[0] }
      })
      if (Either.isLeft(rendered)) return yield* Effect.fail(rendered.left)
      const checks: ReadonlyArray<ReadinessCheck> = rendered.right
      // Noted before the spawn, once the previous run's output is indexed: the lines the new
      // run prints (even at once) come after this id, and the old run's lines do not count.
      const afterId = checks.some((c) => c._tag === "output")
        ? yield* indexedAll(id).pipe(
            Effect.zipRight(logs.stats(id)),
            Effect.map((s) => s.lastId),
            Effect.orElseSucceed(() => undefined),
          )
        : undefined
      const lines = logs
        .onLines(id, afterId === undefined ? {} : { afterId })
        .pipe(Stream.map((e) => e.message))
      return (handle: ProcessHandle) =>
        waitUntilReady(
          id,
          checks,
          {
            probes,
            interval: config.settings.supervisor.ready_check_interval,
            lines,
            command: {
              shell: shellArgv(config.settings.general.shell),
              cwd: def.config.dir,
              env: run.env,
              ...(run.uid !== undefined ? { uid: run.uid } : {}),
              ...(run.gid !== undefined ? { gid: run.gid } : {}),
            },
          },
          handle.exit,
        )
    })

  const runStart = new Map<string, number>()
  const ctx: LifecycleContext = {
    processes,
    shell: config.settings.general.shell,
    settingsUser: config.settings.supervisor.user,
    baseEnv: config.env,
    stopTimeout: config.settings.supervisor.stop_timeout,
    prepareLogs: (id: string) =>
      Effect.gen(function* () {
        const { rawPath } = yield* logs.prepare(id)
        yield* logs.follow(id)
        // Where this run's output starts, so that a failure shows this run's lines only.
        const { lastId } = yield* logs.stats(id)
        runStart.set(id, lastId)
        return rawPath
      }).pipe(Effect.orDie),
    lastLines: (id: string, n: number) =>
      indexedAll(id).pipe(
        Effect.zipRight(logs.query(id, { lines: n })),
        Effect.map((es) => es.filter((e) => e.id > (runStart.get(id) ?? 0)).map((e) => e.message)),
        Effect.orElseSucceed(() => []),
      ),
    update,
    prepareReadiness,
  }

  /**
   * Forks the daemon's lifecycle fiber. `spawned` completes once its process exists and is
   * recorded (or could not be spawned); `outcome` with what a start request reports, also when
   * the fiber is interrupted before it could say (Interrupted).
   */
  const launch = (def: DaemonDefinition, adopted: Option.Option<ProcessHandle>) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const ready = yield* Deferred.make<StartOutcome>()
      const spawned = yield* Deferred.make<void>()
      const fiber = yield* FiberMap.run(fibers, id, lifecycle(ctx, def, ready, spawned, adopted))
      const ended = Fiber.await(fiber)
      const outcome: Effect.Effect<StartOutcome> = Effect.raceFirst(
        Deferred.await(ready),
        ended.pipe(
          Effect.zipRight(Deferred.poll(ready)),
          Effect.flatMap(Option.getOrElse(() => Effect.succeed<StartOutcome>({ _tag: "Interrupted", id }))),
        ),
      )
      return { spawned: Effect.raceFirst(Deferred.await(spawned), Effect.asVoid(ended)), outcome }
    })

  const stopLocked = (id: string) =>
    Effect.gen(function* () {
      const r = yield* find(id)
      const running = yield* FiberMap.has(fibers, id)
      yield* FiberMap.remove(fibers, id)
      return running && isActive(r)
    })

  const isDisabled = (id: string) => state.get.pipe(Effect.map((s) => s.disabled.includes(id)))

  const startLocked = (def: DaemonDefinition, options: StartOptions) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const current = (yield* Ref.get(registry)).get(id)
      // A running daemon is reported as running even when disabled (disabling leaves it running).
      if (current && isActive(current) && !options.force && (yield* FiberMap.has(fibers, id)))
        return { now: { _tag: "AlreadyRunning", id, pid: current.pid } as const }
      if (yield* isDisabled(id)) return { now: { _tag: "Disabled", id } as const }
      // Waits for the previous fiber (running, backing off or ending) to be gone with its
      // process: FiberMap.run alone would interrupt it without waiting.
      yield* FiberMap.remove(fibers, id)
      yield* register(def)
      const launched = yield* launch(def, Option.none())
      const gen = ++launchCount
      launches.set(id, { gen, outcome: launched.outcome })
      // Holds the lock until the process is recorded, so that a concurrent start sees it running.
      yield* launched.spawned
      return { wait: launched.outcome, gen }
    })

  // The latest start of each daemon: a start superseded by a newer one (a concurrent restart or
  // `start --force`) reports the newer start's outcome instead of "interrupted".
  const launches = new Map<string, { readonly gen: number; readonly outcome: Effect.Effect<StartOutcome> }>()
  let launchCount = 0
  const followSuperseded = (
    id: string,
    gen: number,
    outcome: Effect.Effect<StartOutcome>,
  ): Effect.Effect<StartOutcome> =>
    outcome.pipe(
      Effect.flatMap((o) =>
        o._tag !== "Interrupted"
          ? Effect.succeed(o)
          : // Under the lock: a newer start has registered itself by the time it is released.
            withLock(id)(Effect.sync(() => launches.get(id))).pipe(
              Effect.flatMap((latest) =>
                latest !== undefined && latest.gen > gen
                  ? followSuperseded(id, latest.gen, latest.outcome)
                  : Effect.succeed(o),
              ),
            ),
      ),
    )

  const supervisor: SupervisorShape = {
    start: (def, options = {}) =>
      withLock(def.id.qualified)(startLocked(def, options)).pipe(
        Effect.flatMap(
          (r): Effect.Effect<StartOutcome> =>
            "now" in r ? Effect.succeed(r.now) : followSuperseded(def.id.qualified, r.gen, r.wait),
        ),
      ),
    stop: (id) => withLock(id)(stopLocked(id)),
    restart: (id, def) =>
      Effect.gen(function* () {
        const d = def ?? (yield* find(id)).def
        return yield* supervisor.start(d, { force: true })
      }),
    enable: (id) =>
      state
        .update((s) => ({ ...s, disabled: s.disabled.filter((d) => d !== id) }))
        .pipe(Effect.zipLeft(bump), Effect.as(true)),
    disable: (id) =>
      state
        .update((s) => (s.disabled.includes(id) ? s : { ...s, disabled: [...s.disabled, id] }))
        .pipe(Effect.zipLeft(bump), Effect.as(true)),
    get: find,
    list: Ref.get(registry).pipe(Effect.map((m) => [...m.values()])),
    isDisabled,
    disabledIds: state.get.pipe(Effect.map((s) => s.disabled)),
    wait: (id) =>
      Effect.gen(function* () {
        yield* find(id)
        // The lifecycle fiber ends when the daemon is done for good: no retry pending.
        const fiber = yield* FiberMap.get(fibers, id).pipe(Effect.option)
        if (Option.isSome(fiber)) yield* Fiber.await(fiber.value)
        return yield* version.changes.pipe(
          Stream.mapEffect(() => find(id)),
          Stream.filter((r) => !isActive(r)),
          Stream.runHead,
          Effect.flatMap(Option.match({ onNone: () => find(id), onSome: Effect.succeed })),
        )
      }),
    clean: (ids) =>
      Effect.gen(function* () {
        const candidates = [...(yield* Ref.get(registry)).keys()].filter(
          (id) => ids === undefined || ids.includes(id),
        )
        const names: Array<string> = []
        for (const id of candidates) {
          // Under the daemon's lock: a daemon being started right now is not forgotten.
          const forgotten = yield* withLock(id)(
            Effect.gen(function* () {
              const r = (yield* Ref.get(registry)).get(id)
              if (!r || isActive(r)) return false
              yield* FiberMap.remove(fibers, id)
              yield* Ref.update(registry, (m) => {
                const next = new Map(m)
                next.delete(id)
                return next
              })
              yield* state.update((s) => {
                const daemons = { ...s.daemons }
                delete daemons[id]
                return { ...s, daemons }
              })
              return true
            }),
          )
          if (forgotten) names.push(id)
        }
        for (const id of names) yield* logs.forget(id).pipe(Effect.ignore)
        yield* bump
        return names
      }),
    stopAll: Effect.gen(function* () {
      const all = [...(yield* Ref.get(registry)).values()]
      const levels = stopLevels(new Map(all.map((r) => [r.def.id.qualified, r.def.config.depends] as const)))
      for (const level of levels) {
        yield* Effect.forEach(level, (id) => withLock(id)(FiberMap.remove(fibers, id)), {
          concurrency: "unbounded",
          discard: true,
        })
      }
    }),
    changes: version.changes,
    entry: (r, disabled) => {
      const uptime =
        r.startedAt && isActive(r) ? Math.max(0, Math.floor((Date.now() - r.startedAt) / 1000)) : 0
      const status = disabled && !isActive(r) ? { ...r.status, type: "disabled" as const } : r.status
      return {
        id: r.def.id,
        title: r.def.id.name,
        pid: isActive(r) ? r.pid : null,
        status,
        dir: r.def.config.dir,
        cpu_percent: 0,
        memory_bytes: 0,
        uptime_secs: uptime,
        proxy_url: null,
        slug: null,
        active_port: null,
        resolved_port: r.def.config.port?.expect ?? [],
        enabled: !disabled,
        adhoc: r.def.adhoc,
        run: r.def.config.run,
        retry_count: r.retryCount,
        source: r.def.source,
      }
    },
  }

  /** Takes back what a previous supervisor left running: same PID and start time, or it is gone. */
  const adoptPrevious = Effect.gen(function* () {
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
      const runtime: Runtime = {
        ...initialRuntime(def),
        status: record.status,
        startedAt: record.started_at,
        retryCount: record.retry_count,
      }
      yield* Ref.update(registry, (m) => new Map(m).set(record.id, runtime))
      if (!isActive(record) || record.pid === null || record.start_time === null) continue
      const handle = yield* processes.adopt(record.pid, record.start_time)
      if (Option.isSome(handle)) {
        yield* Ref.update(registry, (m) =>
          new Map(m).set(record.id, {
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
        if (record.status.type === "stopping")
          yield* Effect.forkDaemon(supervisor.stop(record.id).pipe(Effect.ignore))
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
  })

  return { supervisor, adoptPrevious }
})

/**
 * The supervisor service. Building it adopts the daemons a previous supervisor
 * left running; closing it stops every daemon, dependents first.
 */
export const SupervisorLive = Layer.scoped(
  Supervisor,
  Effect.gen(function* () {
    const { supervisor, adoptPrevious } = yield* makeSupervisor
    yield* adoptPrevious
    // Registered after the FiberMap's own finalizer, so it runs first: an orderly stop.
    yield* Effect.addFinalizer(() => supervisor.stopAll)
    return supervisor
  }),
)
