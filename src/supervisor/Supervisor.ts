import { Context, Deferred, Effect, Exit, Fiber, FiberSet, Layer, Option, Ref, Stream } from "effect"
import { makeFiberRegistry } from "../concurrency/fiberRegistry.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { LogStore } from "../logs/LogStore.js"
import { type ProcessHandle, ProcessService } from "../process/ProcessService.js"
import { StateStore } from "../state/StateStore.js"
import { adoptPrevious } from "./adopt.js"
import { type DaemonState, isActive } from "./DaemonState.js"
import { apiEntry } from "./entry.js"
import { shellArgv } from "./environment.js"
import type { DaemonNotFound } from "./errors.js"
import { makeHookFirer } from "./hooks/fire.js"
import { HookRunner, liveHookRunner } from "./hooks/HookRunner.js"
import { makeLaunches } from "./launches.js"
import { type LifecycleContext, lifecycle } from "./lifecycle.js"
import { makeLocks } from "./locks.js"
import { stopLevels } from "./order.js"
import { livePortAvailability, PortAvailability } from "./ports/availability.js"
import { resolvePorts } from "./ports/resolve.js"
import { liveProbes, ReadinessProbes } from "./readiness/index.js"
import { indexedAll, indexedUpTo, prepareReadiness } from "./readinessContext.js"
import { makeRegistry } from "./registry.js"
import type { DaemonUsage } from "./resourceUsage.js"
import { SupervisorConfig } from "./SupervisorConfig.js"

export interface StartOptions {
  /** Restart the daemon if it is already running. */
  readonly force?: boolean
  /**
   * Told once the daemon's process exists and is recorded (it waits for readiness now), with
   * its runtime: the pid and the ports it got (shifted by a bump). Not told when nothing is
   * spawned (already running, disabled) or the spawn failed.
   */
  readonly onSpawned?: (r: DaemonState) => Effect.Effect<void>
  /**
   * Return only once what the start reports (the pid above all) is in the state file (default
   * true). A start of many daemons passes false for each and `sync`s once at the end: waiting
   * for each made the state file be written once per daemon.
   */
  readonly sync?: boolean
}

export interface SupervisorShape {
  /** Starts a daemon and waits until it is ready, has completed, or failed. */
  readonly start: (def: DaemonDefinition, options?: StartOptions) => Effect.Effect<StartOutcome>
  /** Stops a daemon (its whole process group); false when it was not running. */
  readonly stop: (id: string) => Effect.Effect<boolean, DaemonNotFound>
  readonly restart: (id: string, def?: DaemonDefinition) => Effect.Effect<StartOutcome, DaemonNotFound>
  readonly enable: (id: string) => Effect.Effect<boolean>
  readonly disable: (id: string) => Effect.Effect<boolean>
  readonly get: (id: string) => Effect.Effect<DaemonState, DaemonNotFound>
  /** Whether the daemon runs now (starting, ready, stopping); false for one it does not know. */
  readonly isRunning: (id: string) => Effect.Effect<boolean>
  readonly list: Effect.Effect<ReadonlyArray<DaemonState>>
  readonly isDisabled: (id: string) => Effect.Effect<boolean>
  readonly disabledIds: Effect.Effect<ReadonlyArray<string>>
  /** Returns once every change made so far is in the state file. */
  readonly sync: Effect.Effect<void>
  /** Waits until the daemon is neither starting nor running; its last exit status. */
  readonly wait: (id: string) => Effect.Effect<DaemonState, DaemonNotFound>
  /** Forgets daemons that are not running; returns their IDs. */
  readonly clean: (ids?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /**
   * Shuts down: stops every daemon, dependents before their dependencies (firing on_exit, not
   * on_stop), and waits for the hooks still running (each ends by its timeout at the latest).
   */
  readonly stopAll: Effect.Effect<void>
  /**
   * Shuts down leaving the daemons running, recorded in the state file for the next supervisor
   * to adopt (`supervisor supervisor start --force`); returns how many run. No hook fires.
   */
  readonly detach: Effect.Effect<number>
  /** Emits whenever any daemon changes (a counter). */
  readonly changes: Stream.Stream<number>
  readonly entry: (r: DaemonState, disabled: boolean, usage?: DaemonUsage) => ApiDaemonEntry
  /** The daemon's process tree (root first, children nested); empty when it is not running. */
  readonly tree: (id: string) => Effect.Effect<ReadonlyArray<ProcessTreeNode>, DaemonNotFound>
}

export class Supervisor extends Context.Tag("supervisor/Supervisor")<Supervisor, SupervisorShape>() {}

export const makeSupervisor = Effect.gen(function* () {
  const processes = yield* ProcessService
  const logs = yield* LogStore
  const state = yield* StateStore
  const config = yield* SupervisorConfig
  const probes = Option.getOrElse(yield* Effect.serviceOption(ReadinessProbes), () => liveProbes)
  const hookRunner = Option.getOrElse(yield* Effect.serviceOption(HookRunner), () =>
    liveHookRunner((line) => process.stderr.write(`${line}\n`)),
  )
  const ports = Option.getOrElse(yield* Effect.serviceOption(PortAvailability), () => livePortAvailability)
  const hookFibers = yield* FiberSet.make<unknown, never>()
  const shuttingDown = yield* Ref.make(false)
  const detaching = yield* Ref.make(false)
  const reg = yield* makeRegistry(state)
  const { registry, version, bump, update, find, register } = reg
  const fibers = yield* makeFiberRegistry<string>()
  const withLock = makeLocks()
  const launches = makeLaunches(withLock)

  const runStart = new Map<string, number>()
  const ctx: LifecycleContext = {
    processes,
    shell: config.settings.general.shell,
    toolManager: {
      enabled: config.settings.general.tool_manager,
      bin: config.settings.general.tool_manager_bin,
    },
    settingsUser: config.settings.supervisor.user,
    baseEnv: config.env,
    stopTimeout: config.settings.supervisor.stop_timeout,
    prepareLogs: (id: string) =>
      Effect.gen(function* () {
        // Following first: `prepare` then marks the new run's first byte in the follower and
        // says how far the index is (no index file read of its own).
        yield* logs.follow(id)
        const { rawPath, size, indexed } = yield* logs.prepare(id)
        // Where this run's output starts, so that a failure shows this run's lines only and
        // on_output hooks see them only: noted once the lines before it have their ids (output
        // written while the supervisor was down is indexed only now, by the follower).
        let stats = indexed ?? (yield* logs.stats(id))
        if (stats.endOffset < size) {
          yield* indexedUpTo(logs, id, size)
          stats = yield* logs.stats(id)
        }
        runStart.set(id, stats.lastId)
        return rawPath
      }).pipe(Effect.orDie),
    lastLines: (id: string, n: number) =>
      indexedAll(logs, id).pipe(
        Effect.zipRight(logs.query(id, { lines: n })),
        Effect.map((es) => es.filter((e) => e.id > (runStart.get(id) ?? 0)).map((e) => e.message)),
        Effect.orElseSucceed(() => []),
      ),
    update,
    prepareReadiness: prepareReadiness({ logs, config, probes, registry }),
    resolvePorts: (def) => {
      const spec = def.config.port
      if (spec === undefined || spec.expect.length === 0) return Effect.succeed({ ports: [], offset: 0 })
      return resolvePorts(spec.expect, spec.bump, ports.check, ports.holder).pipe(
        Effect.mapError((conflict) => conflict.message),
      )
    },
    fireHook: makeHookFirer({
      runner: hookRunner,
      fibers: hookFibers,
      shell: shellArgv(config.settings.general.shell),
      timeout: config.settings.supervisor.hook_timeout,
    }),
    outputLines: (id: string) => {
      const afterId = runStart.get(id)
      return logs.onLines(id, afterId === undefined ? {} : { afterId }).pipe(
        Stream.map((e) => e.message),
        Stream.catchAll(() => Stream.empty),
      )
    },
    shuttingDown: Ref.get(shuttingDown),
    detaching: Ref.get(detaching),
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
      // However the fiber ends (even interrupted before it ran), neither wait outlives it; a
      // deferred it completed keeps its value. An observer, not a race: no fibers per start.
      // Uninterruptible: the fiber never runs without its observer.
      yield* Effect.uninterruptible(
        fibers.run(id, lifecycle(ctx, def, ready, spawned, adopted)).pipe(
          Effect.tap((fiber) =>
            fiber.addObserver(() => {
              Deferred.unsafeDone(spawned, Exit.void)
              Deferred.unsafeDone(ready, Exit.succeed<StartOutcome>({ _tag: "Interrupted", id }))
            }),
          ),
        ),
      )
      return { spawned: Deferred.await(spawned), outcome: Deferred.await(ready) }
    })

  const stopLocked = (id: string) =>
    Effect.gen(function* () {
      const r = yield* find(id)
      const running = yield* fibers.has(id)
      yield* fibers.remove(id)
      return running && isActive(r)
    })

  const isDisabled = (id: string) => state.get.pipe(Effect.map((s) => s.disabled.includes(id)))

  const startLocked = (def: DaemonDefinition, options: StartOptions) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const current = (yield* Ref.get(registry)).get(id)
      // A running daemon is reported as running even when disabled (disabling leaves it running).
      if (current && isActive(current) && !options.force && (yield* fibers.has(id)))
        return { now: { _tag: "AlreadyRunning", id, pid: current.pid } as const }
      if (yield* isDisabled(id)) return { now: { _tag: "Disabled", id } as const }
      // Waits for the previous fiber (running, backing off or ending) to be gone with its
      // process: `run` alone would interrupt it without waiting.
      yield* fibers.remove(id)
      yield* register(def)
      const launched = yield* launch(def, Option.none())
      const gen = launches.note(id, launched.outcome)
      // Holds the lock until the process is recorded, so that a concurrent start sees it running.
      yield* launched.spawned
      if (options.onSpawned) {
        const spawned = (yield* Ref.get(registry)).get(id)
        if (spawned?.pid != null && isActive(spawned)) yield* options.onSpawned(spawned)
      }
      return { wait: launched.outcome, gen }
    })

  const supervisor: SupervisorShape = {
    start: (def, options = {}) =>
      withLock(def.id.qualified)(startLocked(def, options)).pipe(
        Effect.flatMap(
          (r): Effect.Effect<StartOutcome> =>
            "now" in r ? Effect.succeed(r.now) : launches.followSuperseded(def.id.qualified, r.gen, r.wait),
        ),
        // What a start reports (the pid above all) is on disk when it returns.
        Effect.zipLeft(options.sync === false ? Effect.void : state.sync),
      ),
    sync: state.sync,
    stop: (id) => withLock(id)(stopLocked(id)).pipe(Effect.zipLeft(state.sync)),
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
    // no DaemonNotFound made (an Error, with its stack) for each daemon of a fresh start
    isRunning: (id) =>
      Ref.get(registry).pipe(
        Effect.map((m) => {
          const r = m.get(id)
          return r !== undefined && isActive(r)
        }),
      ),
    list: Ref.get(registry).pipe(Effect.map((m) => [...m.values()])),
    isDisabled,
    disabledIds: state.get.pipe(Effect.map((s) => s.disabled)),
    wait: (id) =>
      Effect.gen(function* () {
        yield* find(id)
        // The lifecycle fiber ends when the daemon is done for good: no retry pending.
        const fiber = yield* fibers.get(id)
        if (fiber !== undefined) yield* Fiber.await(fiber)
        for (;;) {
          const seen = yield* version.current
          const r = yield* find(id)
          if (!isActive(r)) return r
          yield* version.after(seen)
        }
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
              yield* fibers.remove(id)
              yield* Ref.update(registry, (m) => {
                m.delete(id)
                return m
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
    detach: Effect.gen(function* () {
      yield* Ref.set(shuttingDown, true)
      yield* Ref.set(detaching, true)
      // every lifecycle ends; the processes stay, recorded as running for the next supervisor
      yield* fibers.clear
      yield* FiberSet.awaitEmpty(hookFibers)
      yield* state.sync
      return [...(yield* Ref.get(registry)).values()].filter((r) => r.handle !== null).length
    }),
    stopAll: Effect.gen(function* () {
      yield* Ref.set(shuttingDown, true)
      const all = [...(yield* Ref.get(registry)).values()]
      const levels = stopLevels(new Map(all.map((r) => [r.def.id.qualified, r.def.config.depends] as const)))
      for (const level of levels) {
        yield* Effect.forEach(level, (id) => withLock(id)(fibers.remove(id)), {
          concurrency: "unbounded",
          discard: true,
        })
      }
      yield* FiberSet.awaitEmpty(hookFibers)
      yield* state.sync
    }),
    changes: version.changes,
    entry: apiEntry,
    tree: (id) =>
      find(id).pipe(
        Effect.flatMap((r) =>
          isActive(r) && r.pid !== null
            ? processes.tree(r.pid).pipe(Effect.map(Option.match({ onNone: () => [], onSome: (n) => [n] })))
            : Effect.succeed([]),
        ),
      ),
  }

  return {
    supervisor,
    adoptPrevious: adoptPrevious({ state, processes, logs, registry: reg, launch, stop: supervisor.stop }),
  }
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
    // Registered after the fiber registry's own finalizer, so it runs first: an orderly stop.
    yield* Effect.addFinalizer(() => supervisor.stopAll)
    return supervisor
  }),
)
