import { Chunk, Context, Deferred, Effect, FiberSet, Layer, Option, Queue, Ref, Stream } from "effect"
import { SupervisorConfig, type SupervisorConfigShape } from "../config/SupervisorConfig.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { stopLevels } from "../domain/dependencyLevels.js"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import type { Reason } from "../domain/Reason.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { LogStore, type LogStoreShape } from "../logs/LogStore.js"
import { type ProcessHandle, ProcessService, type ProcessServiceShape } from "../process/ProcessService.js"
import { StateStore } from "../state/StateStore.js"
import { StorageHealth } from "../state/StorageHealth.js"
import { adoptPrevious } from "./adopt.js"
import { type DaemonState, isActive } from "./DaemonState.js"
import { DaemonCommand } from "./daemon/commands.js"
import { answerUnhandled, daemonLifecycle } from "./daemon/lifecycle.js"
import { apiEntry } from "./entry.js"
import { shellArgv } from "./environment.js"
import type { DaemonNotFound } from "./errors.js"
import { liveArchiveRunner } from "./logArchive.js"
import { followOptionsOf } from "./logPolicy.js"
import { type Archive, archiveCommandOf, pruneForever, prunePass } from "./logRetention.js"
import { makeDaemonContext } from "./makeContext.js"
import { makeRegistry, type Registry } from "./registry.js"
import type { DaemonUsage } from "./resourceUsage.js"

export interface StartOptions {
  /** Restart the daemon if it is already running. */
  readonly force?: boolean
  /** Who asks (default `api`): logged, and kept for what automation needs to know. */
  readonly reason?: Reason
  /**
   * Told once the daemon's process exists and is recorded (it waits for readiness now), with
   * its state: the pid and the ports it got (shifted by a bump). Not told when nothing is
   * spawned (already running, disabled) or the spawn failed.
   */
  readonly onSpawned?: (r: DaemonState) => Effect.Effect<void>
  /** Told the outcome as soon as it is known. */
  readonly onOutcome?: (o: StartOutcome) => Effect.Effect<void>
  /**
   * Return only once what the start reports (the pid above all) is in the state file (default
   * true). A start of many daemons passes false for each and `sync`s once at the end.
   */
  readonly sync?: boolean
}

export interface SupervisorShape {
  /** Starts a daemon and waits until it is ready, has completed, or failed. */
  readonly start: (def: DaemonDefinition, options?: StartOptions) => Effect.Effect<StartOutcome>
  /**
   * Sends a start and returns the wait for its outcome (with `sync`, the state file's too): a
   * start of many daemons sends them all, then waits, without a fiber for each.
   */
  readonly begin: (
    def: DaemonDefinition,
    options?: StartOptions,
  ) => Effect.Effect<Effect.Effect<StartOutcome>>
  /** Stops a daemon (its whole process group); false when it was not running. */
  readonly stop: (id: string, reason?: Reason) => Effect.Effect<boolean, DaemonNotFound>
  /** Stops and starts a daemon (starts it when it does not run), with `def` or its last definition. */
  readonly restart: (
    id: string,
    def?: DaemonDefinition,
    reason?: Reason,
  ) => Effect.Effect<StartOutcome, DaemonNotFound>
  /**
   * Restarts a daemon only if it runs (a watched file changed), without waiting for the new run's
   * outcome; false when it did not run (or is disabled). `detail` follows the reason in the
   * daemon's log (`restarting: watch (src/app.js changed)`).
   */
  readonly restartIfRunning: (
    id: string,
    reason: Reason,
    def?: DaemonDefinition,
    detail?: string,
  ) => Effect.Effect<boolean, DaemonNotFound>
  /**
   * Stops a running daemon as a failure (a limit was exceeded): it ends `errored` with `message`
   * and is retried if it has retries left, using one; `message` is also the `[supervisor]` line
   * of its log. False when it did not run, or (with `pid`) runs another process than `pid`.
   */
  readonly kill: (
    id: string,
    reason: Reason,
    message: string,
    pid?: number,
  ) => Effect.Effect<boolean, DaemonNotFound>
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
  /** Waits until the daemon is neither running nor waiting for a retry; its state then. */
  readonly wait: (id: string) => Effect.Effect<DaemonState, DaemonNotFound>
  /**
   * Why the daemon's ports cannot be had now (taken, and `port.bump` cannot shift them), as its
   * start would say it; undefined when they can. A start checks them before it spawns anything.
   */
  readonly portConflict: (def: DaemonDefinition) => Effect.Effect<string | undefined>
  /** The last `n` output lines of the daemon's latest run (empty when it has none). */
  readonly lastLines: (id: string, n: number) => Effect.Effect<ReadonlyArray<string>>
  /**
   * Forgets daemons that are not running, among `ids` and the daemons of `namespaces` (every
   * daemon when neither is given); returns their IDs.
   */
  readonly clean: (
    ids?: ReadonlyArray<string>,
    namespaces?: ReadonlyArray<string>,
  ) => Effect.Effect<ReadonlyArray<string>>
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
  /** The daemons now, then after each change. */
  readonly changes: Stream.Stream<ReadonlyMap<string, DaemonState>>
  readonly entry: (r: DaemonState, disabled: boolean, usage?: DaemonUsage) => ApiDaemonEntry
  /**
   * Records why the daemon's `watch` files cannot be watched (its watcher could not be set up),
   * or clears it (undefined): its entry (`status`, the API) shows it.
   */
  readonly setWatchProblem: (id: string, problem: string | undefined) => Effect.Effect<void>
  /** The daemon's process tree (root first, children nested); empty when it is not running. */
  readonly tree: (id: string) => Effect.Effect<ReadonlyArray<ProcessTreeNode>, DaemonNotFound>
}

export class Supervisor extends Context.Tag("supervisor/Supervisor")<Supervisor, SupervisorShape>() {}

const makeSupervisor = Effect.gen(function* () {
  const processes = yield* ProcessService
  const logs = yield* LogStore
  const config = yield* SupervisorConfig
  const state = yield* StateStore
  const health = yield* StorageHealth
  const registry = yield* makeRegistry(state)
  const hookFibers = yield* FiberSet.make<unknown, never>()
  const shuttingDown = yield* Ref.make(false)
  const detaching = yield* Ref.make(false)
  /** Why a daemon's files cannot be watched, by ID (set by the watch service). */
  const watchProblems = new Map<string, string>()
  const ctx = yield* makeDaemonContext({ registry, hookFibers, shuttingDown, detaching })

  // One lifecycle fiber per daemon, each reading its own queue. A command for a daemon that has
  // one is put in its queue in one synchronous step; creating a lifecycle, and ending a forgotten
  // daemon's, hold the lock: a lifecycle ends only with its queue empty, so nothing sent is lost.
  const queues = new Map<string, Queue.Queue<DaemonCommand>>()
  const lifecycles = yield* FiberSet.make<void, never>()
  const lock = yield* Effect.makeSemaphore(1)
  /** Starts a lifecycle (call holding the lock). */
  const launch = (
    def: DaemonDefinition,
    adopted: Option.Option<{ readonly handle: ProcessHandle; readonly attempt: number }>,
  ) =>
    Effect.gen(function* () {
      const id = def.id.qualified
      const queue = yield* Queue.unbounded<DaemonCommand>()
      const retire = lock.withPermits(1)(
        Effect.sync(() => {
          if (Option.getOrElse(queue.unsafeSize(), () => 0) > 0) return false
          queues.delete(id)
          return true
        }),
      )
      // However it ends (interrupted at shutdown, or a defect), what was still queued is answered.
      const ended = Effect.suspend(() => {
        if (queues.get(id) === queue) queues.delete(id)
        return Effect.map(Queue.takeAll(queue), (left) => Chunk.forEach(left, (c) => answerUnhandled(c, id)))
      })
      queues.set(id, queue)
      yield* FiberSet.run(
        lifecycles,
        daemonLifecycle(ctx, def, queue, adopted, retire).pipe(
          Effect.tapErrorCause((cause) => Effect.logError(`the lifecycle of ${id} failed`, cause)),
          Effect.ensuring(ended),
        ),
      )
      return queue
    })
  /** Sends a command to the daemon's lifecycle (started with `def` when it has none). */
  const send = (def: DaemonDefinition, command: DaemonCommand) =>
    Effect.suspend(() => {
      const queue = queues.get(def.id.qualified)
      if (queue?.unsafeOffer(command)) return Effect.void
      return lock.withPermits(1)(
        Effect.suspend(() => {
          const again = queues.get(def.id.qualified)
          return again !== undefined
            ? Queue.offer(again, command)
            : Effect.flatMap(launch(def, Option.none()), (q) => Queue.offer(q, command))
        }),
      )
    }).pipe(Effect.asVoid)
  const ask = <A>(id: string, command: (reply: Deferred.Deferred<A>) => DaemonCommand) =>
    Effect.gen(function* () {
      const r = yield* registry.find(id)
      const reply = yield* Deferred.make<A>()
      yield* send(r.def, command(reply))
      return yield* Deferred.await(reply)
    })

  const begin = (def: DaemonDefinition, options: StartOptions = {}) =>
    Effect.gen(function* () {
      const reply = {
        spawned: yield* Deferred.make<boolean>(),
        outcome: yield* Deferred.make<StartOutcome>(),
        onSpawned: options.onSpawned,
        onOutcome: options.onOutcome,
      }
      const mode = options.force ? "restart" : "start"
      yield* send(def, DaemonCommand.Start({ def, mode, reason: options.reason ?? "api", reply }))
      // What a start reports (the pid above all) is on disk when it returns.
      return options.sync === false
        ? Deferred.await(reply.outcome)
        : Effect.zipLeft(Deferred.await(reply.outcome), state.sync)
    })
  const start = (def: DaemonDefinition, options: StartOptions = {}) => Effect.flatten(begin(def, options))

  const isDisabled = (id: string) => state.get.pipe(Effect.map((s) => s.disabled.includes(id)))
  const setDisabled = (id: string, disabled: boolean) =>
    state
      .update((s) =>
        disabled === s.disabled.includes(id)
          ? s
          : { ...s, disabled: disabled ? [...s.disabled, id] : s.disabled.filter((d) => d !== id) },
      )
      .pipe(Effect.zipRight(registry.touch), Effect.as(true))

  /** Stops the daemons by dependency level, dependents first, each level at once. */
  const stopInOrder = Effect.gen(function* () {
    const all = yield* registry.all
    const levels = stopLevels(
      new Map([...all.values()].map((r) => [r.def.id.qualified, r.def.config.depends])),
    )
    for (const level of levels) {
      const withLifecycle = level.filter((id) => queues.has(id))
      const stop = (id: string) =>
        ask(id, (reply: Deferred.Deferred<boolean>) => DaemonCommand.Stop({ reason: "shutdown", reply }))
      yield* Effect.forEach(withLifecycle, stop, {
        concurrency: "unbounded",
        discard: true,
      }).pipe(Effect.ignore)
    }
  })

  const supervisor: SupervisorShape = {
    start,
    begin,
    stop: (id, reason = "api") =>
      ask(id, (reply: Deferred.Deferred<boolean>) => DaemonCommand.Stop({ reason, reply })).pipe(
        Effect.zipLeft(state.sync),
      ),
    restart: (id, def, reason = "api") =>
      Effect.flatMap(def === undefined ? registry.find(id) : Effect.succeed({ def }), (r) =>
        start(r.def, { force: true, reason }),
      ),
    restartIfRunning: (id, reason, def, detail) =>
      ask(id, (reply: Deferred.Deferred<boolean>) => DaemonCommand.Restart({ def, reason, reply, detail })),
    kill: (id, reason, message, pid) =>
      ask(id, (reply: Deferred.Deferred<boolean>) =>
        DaemonCommand.Kill({ reason, message, pid, reply }),
      ).pipe(Effect.zipLeft(state.sync)),
    enable: (id) => setDisabled(id, false),
    disable: (id) => setDisabled(id, true),
    get: registry.find,
    isRunning: (id) => Effect.map(registry.current(id), (r) => r !== undefined && isActive(r)),
    list: Effect.map(registry.all, (m) => [...m.values()]),
    isDisabled,
    disabledIds: state.get.pipe(Effect.map((s) => s.disabled)),
    sync: state.sync,
    lastLines: ctx.lastLines,
    portConflict: (def) =>
      Effect.match(ctx.resolvePorts(def), { onFailure: (e) => e.message, onSuccess: () => undefined }),
    wait: (id) =>
      Effect.gen(function* () {
        yield* registry.find(id)
        const settled = yield* registry.changes.pipe(
          Stream.map((m) => m.get(id)),
          Stream.filter((r) => r === undefined || (!isActive(r) && !r.retryPending)),
          Stream.runHead,
        )
        // forgotten meanwhile: not found
        return yield* Option.match(Option.flatMap(settled, Option.fromNullable), {
          onNone: () => registry.find(id),
          onSome: Effect.succeed,
        })
      }),
    clean: (ids, namespaces) =>
      Effect.gen(function* () {
        const everything = ids === undefined && namespaces === undefined
        const candidates = [...(yield* registry.all).keys()].filter(
          (id) =>
            everything ||
            (ids?.includes(id) ?? false) ||
            (namespaces?.includes(id.slice(0, id.indexOf("/"))) ?? false),
        )
        const names: Array<string> = []
        for (const id of candidates) {
          const forgotten = yield* ask(id, (reply: Deferred.Deferred<boolean>) =>
            DaemonCommand.Forget({ reply }),
          ).pipe(Effect.orElseSucceed(() => false))
          if (forgotten) names.push(id)
        }
        return names
      }),
    detach: Effect.gen(function* () {
      yield* Ref.set(shuttingDown, true)
      yield* Ref.set(detaching, true)
      // every lifecycle ends; the processes stay, recorded as running for the next supervisor
      yield* FiberSet.clear(lifecycles)
      yield* FiberSet.awaitEmpty(hookFibers)
      yield* state.sync
      return [...(yield* registry.all).values()].filter((r) => r.handle !== null).length
    }),
    stopAll: Effect.gen(function* () {
      yield* Ref.set(shuttingDown, true)
      yield* stopInOrder
      yield* FiberSet.awaitEmpty(hookFibers)
      yield* state.sync
    }),
    changes: registry.changes,
    entry: (r, disabled, usage) =>
      apiEntry(
        r,
        disabled,
        usage,
        watchProblems.get(r.def.id.qualified),
        health.logProblemOf(r.def.id.safe_path),
      ),
    setWatchProblem: (id, problem) =>
      Effect.sync(() => {
        if (problem === undefined) watchProblems.delete(id)
        else watchProblems.set(id, problem)
      }),
    tree: (id) =>
      registry
        .find(id)
        .pipe(
          Effect.flatMap((r) =>
            isActive(r) && r.pid !== null
              ? processes.tree(r.pid).pipe(Effect.map(Option.match({ onNone: () => [], onSome: (n) => [n] })))
              : Effect.succeed([]),
          ),
        ),
  }

  yield* adoptPrevious({
    state,
    processes,
    logs,
    registry,
    adopt: (def, handle, attempt) =>
      Effect.asVoid(lock.withPermits(1)(launch(def, Option.some({ handle, attempt })))),
    resume: (def, attempt, message) =>
      send(def, DaemonCommand.Resume({ attempt, exit: { code: null, signal: null, known: false }, message })),
    stop: supervisor.stop,
    followOptions: (def) => followOptionsOf(def.config, config.settings),
  })
  yield* Effect.forkScoped(logRetention(logs, registry, config, processes))
  return supervisor
})

/** time_retention and line_retention of every known daemon: a pass now, then hourly. */
const logRetention = (
  logs: LogStoreShape,
  registry: Registry,
  config: SupervisorConfigShape,
  processes: ProcessServiceShape,
) => {
  const { settings } = config
  // one runner per command: a daemon's own archive_hook, or the settings' one
  const runners = new Map<string, Archive>()
  const archiveOf = (daemon: DaemonConfig) => {
    const hook = archiveCommandOf(daemon, settings)
    if (hook === undefined) return undefined
    let archive = runners.get(hook.command)
    if (archive === undefined) {
      archive = {
        batchSize: hook.batchSize,
        run: liveArchiveRunner(
          {
            command: hook.command,
            shell: shellArgv(settings.general.shell),
            env: config.env,
            timeout: settings.supervisor.hook_timeout,
            log: (line) => process.stderr.write(`${line}\n`),
          },
          processes,
        ),
      }
      runners.set(hook.command, archive)
    }
    return archive
  }
  const pass = registry.all.pipe(
    Effect.map((all) => [...all.values()].map((r) => ({ id: r.def.id.qualified, config: r.def.config }))),
    Effect.flatMap((daemons) => prunePass(logs, daemons, settings, archiveOf)),
  )
  return pruneForever(pass)
}

/**
 * The supervisor service. Building it adopts the daemons a previous supervisor left running;
 * closing it stops every daemon, dependents first.
 */
export const SupervisorLive = Layer.scoped(
  Supervisor,
  Effect.gen(function* () {
    const supervisor = yield* makeSupervisor
    // Registered after the lifecycles' own scope, so it runs first: an orderly stop.
    yield* Effect.addFinalizer(() => supervisor.stopAll)
    return supervisor
  }),
)
