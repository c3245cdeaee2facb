import { Deferred, Effect, FiberSet, Ref } from "effect"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { stopLevels } from "../domain/dependencyLevels.js"
import type { Reason } from "../domain/Reason.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { StateStoreShape } from "../state/StateStore.js"
import type { DaemonState } from "./DaemonState.js"
import { DaemonCommand } from "./daemon/commands.js"
import type { DaemonNotFound } from "./errors.js"
import type { Mailboxes } from "./mailboxes.js"
import type { Registry } from "./registry.js"

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
  /** What a restart's log line adds after its reason, e.g. `app/db restarted`. */
  readonly detail?: string | undefined
  /**
   * Return only once what the start reports (the pid above all) is in the state file (default
   * true). A start of many daemons passes false for each and `sync`s once at the end.
   */
  readonly sync?: boolean
}

/** What the supervisor can be told to do: each command goes to the daemon's mailbox. */
export interface SupervisorCommandsShape {
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
  /** Returns once every change made so far is in the state file. */
  readonly sync: Effect.Effect<void>
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
}

export interface CommandDeps {
  readonly mailboxes: Mailboxes
  readonly registry: Registry
  readonly state: StateStoreShape
  /** Where hook fibers run: shutting down waits for them. */
  readonly hookFibers: FiberSet.FiberSet<unknown, never>
  readonly shuttingDown: Ref.Ref<boolean>
  readonly detaching: Ref.Ref<boolean>
}

/** The commands, each sent to the daemon's mailbox; the caller waits for its reply. */
export const makeSupervisorCommands = (deps: CommandDeps): SupervisorCommandsShape => {
  const { mailboxes, registry, state, hookFibers, shuttingDown, detaching } = deps
  const ask = <A>(id: string, command: (reply: Deferred.Deferred<A>) => DaemonCommand) =>
    Effect.gen(function* () {
      const r = yield* registry.find(id)
      const reply = yield* Deferred.make<A>()
      yield* mailboxes.send(r.def, command(reply))
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
      yield* mailboxes.send(
        def,
        DaemonCommand.Start({ def, mode, reason: options.reason ?? "api", reply, detail: options.detail }),
      )
      // What a start reports (the pid above all) is on disk when it returns.
      return options.sync === false
        ? Deferred.await(reply.outcome)
        : Effect.zipLeft(Deferred.await(reply.outcome), state.sync)
    })
  const start = (def: DaemonDefinition, options: StartOptions = {}) => Effect.flatten(begin(def, options))

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
      const stop = (id: string) =>
        ask(id, (reply: Deferred.Deferred<boolean>) => DaemonCommand.Stop({ reason: "shutdown", reply }))
      yield* Effect.forEach(
        level.filter((id) => mailboxes.has(id)),
        stop,
        { concurrency: "unbounded", discard: true },
      ).pipe(Effect.ignore)
    }
  })

  return {
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
    sync: state.sync,
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
      yield* mailboxes.interruptAll
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
  }
}
