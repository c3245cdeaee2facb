import { Clock, Deferred, Effect, Either, Exit, type Fiber, Queue, Scope } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../../domain/DaemonStatus.js"
import type { Reason } from "../../domain/Reason.js"
import type { StartOutcome } from "../../domain/StartOutcome.js"
import type { ExitStatus } from "../../process/ProcessService.js"
import type { NextRetry } from "../DaemonState.js"
import { daemonEnvironment } from "../environment.js"
import { type HookRun, type HookVars, hookCommand } from "../hooks/fire.js"
import type { HookName } from "../hooks/HookRunner.js"
import { restartLimit } from "../restartPolicy.js"
import { nextRetry, type RetryBackoff, retryBackoff } from "../retry.js"
import { DaemonCommand, type StartReply } from "./commands.js"
import type { DaemonContext } from "./context.js"
import { startFailed } from "./outcomes.js"
import { type Run, type RunEnvironment, renderRun, spawnRun } from "./run.js"

export type Phase =
  | { readonly _tag: "Idle" }
  /** A process runs (waiting for readiness, or ready). */
  | { readonly _tag: "Active"; readonly run: Run }
  /** The last run failed; the next retry is due when the retry schedule says. */
  | {
      readonly _tag: "BackingOff"
      readonly serial: number
      readonly fiber: Fiber.RuntimeFiber<void>
      readonly exit: ExitStatus
      /** What the start reports if no retry is left: `<id> exited with code 1`. */
      readonly message: string
    }

/** Everything one daemon's lifecycle knows; only its own fiber changes it. */
export interface Life {
  readonly def: DaemonDefinition
  readonly phase: Phase
  /** The retry count of the current sequence of runs (`SUPERVISOR_RETRY_COUNT`). */
  readonly attempt: number
  /** Where the sequence is in its retry schedule. */
  readonly retries: RetryBackoff
  /** Start requests waiting for the current sequence's outcome (ready, completed, failed). */
  readonly waiters: ReadonlyArray<StartReply>
  /** The environment and user the hooks inherit: the latest spawn's. */
  readonly hookRun: HookRun | undefined
  /** Numbers runs and backoffs: what they report carries it, so stale reports are ignored. */
  readonly serial: number
  /** Forgotten by `clean`: the fiber may end once nothing more is queued for it. */
  readonly forgotten: boolean
}

export const idle: Phase = { _tag: "Idle" }

/** Tells start requests their outcome (and that nothing more will be spawned for them). */
export const tell = (waiters: ReadonlyArray<StartReply>, outcome: StartOutcome) =>
  Effect.suspend(() => {
    const told: Array<Effect.Effect<void>> = []
    for (const w of waiters) {
      Deferred.unsafeDone(w.spawned, Exit.succeed(false))
      Deferred.unsafeDone(w.outcome, Exit.succeed(outcome))
      if (w.onOutcome !== undefined) told.push(w.onOutcome(outcome))
    }
    return told.length === 0 ? Effect.void : Effect.all(told, { discard: true })
  })

/** The steps a lifecycle's handlers share, for one daemon. */
export const makeLifeSteps = (
  ctx: DaemonContext,
  id: string,
  scope: Scope.Scope,
  queue: Queue.Queue<DaemonCommand>,
) => {
  const runEnv = (def: DaemonDefinition): RunEnvironment => ({ ctx, def, scope, queue })
  const interrupted: StartOutcome = { _tag: "Interrupted", id }

  // A hook of a daemon without a run (a start that could not spawn) gets the environment a run
  // would have, as far as it can be built now (else its `env` as written).
  const hookRunOf = (life: Life) =>
    life.hookRun !== undefined
      ? Effect.succeed(life.hookRun)
      : renderRun(ctx, life.def, 0, []).pipe(
          Effect.map((c) => ({ env: c.environment })),
          Effect.orElseSucceed(() => ({ env: daemonEnvironment(ctx.baseEnv, life.def, 0) })),
        )
  // a daemon without the hook (most of them, for most hooks) builds no environment for it
  const fire = (life: Life, hook: HookName, vars: Omit<HookVars, "retryCount"> = {}) =>
    hookCommand(life.def, hook) === undefined
      ? Effect.void
      : Effect.flatMap(hookRunOf(life), (run) =>
          ctx.fireHook(life.def, hook, run, { retryCount: life.attempt, ...vars }),
        )

  /**
   * The daemon failed for good (no retry left, not ready, not spawned): `DaemonFailed` is
   * published (container mode's exit policy hears it), then `on_fail` fires.
   */
  const failedForGood = (life: Life, message: string, exit: ExitStatus | undefined) =>
    Effect.zipRight(
      ctx.publish({
        _tag: "DaemonFailed",
        id,
        exit_code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        message,
      }),
      fire(life, "on_fail", exit === undefined ? {} : { exit }),
    )

  /** Writes a line of the supervisor's own into the daemon's log (`[supervisor] …`). */
  const note = (text: string) => ctx.note(id, text)

  /**
   * Stops the run's process group (signal, then SIGKILL) and closes the run; `final` is its status
   * then, `during` its status while it stops.
   */
  const stopRun = (
    life: Life,
    run: Run,
    final: (s: ExitStatus) => DaemonStatus,
    during: DaemonStatus = { type: "stopping" },
  ) =>
    Effect.gen(function* () {
      yield* ctx.update(id, (r) => ({ ...r, status: during }))
      const s = yield* ctx.processes.stop(
        run.handle,
        life.def.config.stop_signal.signal,
        life.def.config.stop_signal.timeout ?? ctx.stopTimeout,
      )
      yield* ctx.update(id, (r) => ({ ...r, status: final(s), pid: null, startTime: null, handle: null }))
      yield* Scope.close(run.scope, Exit.void)
      return s
    })

  /**
   * After the tracked process exited on its own: ends what the run left in its process group (a
   * child put in the background) the way a stop would, so nothing of it runs on untracked.
   */
  const endLeftovers = (life: Life, run: Run) =>
    Effect.gen(function* () {
      const left = yield* ctx.processes.groupMembers(run.handle.pid)
      if (left.length === 0) return
      yield* note(`stopped ${left.length} process${left.length === 1 ? "" : "es"} left in its process group`)
      yield* ctx.processes.stop(
        run.handle,
        life.def.config.stop_signal.signal,
        life.def.config.stop_signal.timeout ?? ctx.stopTimeout,
      )
    })

  /** Stops a run as asked (`reason`): stopped, with on_stop (but at shutdown) and on_exit. */
  const stopActive = (life: Life, run: Run, reason: Reason) =>
    Effect.gen(function* () {
      const s = yield* stopRun(life, run, (s) => ({ type: "stopped", exit_code: s.code, signal: s.signal }))
      // At shutdown only on_exit fires: on_stop is for a stop somebody asked for.
      if (reason !== "shutdown") yield* fire(life, "on_stop", { exit: s, reason: "stop" })
      yield* fire(life, "on_exit", { exit: s, reason: "stop" })
    })

  /** Spawns the next run of the sequence; a spawn failure fails the sequence (not retried). */
  const spawnNext = (life: Life): Effect.Effect<Life> =>
    Effect.gen(function* () {
      const serial = life.serial + 1
      const spawned = yield* spawnRun(runEnv(life.def), serial, life.attempt)
      if (Either.isLeft(spawned)) {
        const message = spawned.left
        yield* ctx.update(id, (r) => ({ ...r, status: { type: "failed", message }, pid: null, handle: null }))
        const next: Life = { ...life, serial, phase: idle, waiters: [] }
        yield* failedForGood(next, message, undefined)
        yield* tell(life.waiters, startFailed(id, message, undefined, [], 1))
        return next
      }
      const run = spawned.right
      for (const w of life.waiters) Deferred.unsafeDone(w.spawned, Exit.succeed(true))
      const listeners = life.waiters.flatMap((w) => (w.onSpawned === undefined ? [] : [w.onSpawned]))
      if (listeners.length > 0) {
        const now = yield* ctx.current(id)
        if (now !== undefined) for (const onSpawned of listeners) yield* onSpawned(now)
      }
      return { ...life, serial, phase: { _tag: "Active", run }, hookRun: run.hookRun }
    })

  /** A fresh sequence: the definition recorded, the retry count and schedule reset. */
  const startFresh = (life: Life, def: DaemonDefinition, waiters: ReadonlyArray<StartReply>) =>
    Effect.gen(function* () {
      yield* ctx.register(def)
      const retries = retryBackoff(restartLimit(def.config))
      return yield* spawnNext({ ...life, def, attempt: 0, retries, waiters, phase: idle, forgotten: false })
    })

  /**
   * The run failed (`exit`): the next retry when the schedule allows one (recorded with when it
   * is due, for `list`), else give up.
   */
  const failed = (life: Life, exit: ExitStatus, message: string) =>
    Effect.gen(function* () {
      const serial = life.serial + 1
      const now = yield* Clock.currentTimeMillis
      const step = yield* nextRetry(life.retries, now)
      const pending: NextRetry | null =
        step === undefined
          ? null
          : {
              retry: life.attempt + 1,
              limit: restartLimit(life.def.config),
              dueAt: now + step.delayMillis,
            }
      yield* ctx.update(id, (r) => ({ ...r, retryPending: true, nextRetry: pending }))
      if (pending !== null)
        yield* ctx.publish({
          _tag: "RetryScheduled",
          id,
          attempt: pending.retry,
          limit: Number.isFinite(pending.limit) ? pending.limit : null,
          due_at: pending.dueAt,
          message,
        })
      const fiber = yield* (
        step === undefined
          ? Queue.offer(queue, DaemonCommand.GiveUp({ serial }))
          : Effect.sleep(step.delayMillis).pipe(
              Effect.zipRight(Queue.offer(queue, DaemonCommand.RetryDue({ serial }))),
            )
      ).pipe(Effect.asVoid, Effect.forkIn(scope))
      const retries = step?.next ?? life.retries
      return {
        ...life,
        serial,
        retries,
        phase: { _tag: "BackingOff", serial, fiber, exit, message },
      } satisfies Life
    })

  const activeRun = (life: Life, serial: number): Run | undefined =>
    life.phase._tag === "Active" && life.phase.run.serial === serial ? life.phase.run : undefined

  return {
    ctx,
    id,
    runEnv,
    interrupted,
    fire,
    failedForGood,
    stopRun,
    stopActive,
    endLeftovers,
    spawnNext,
    startFresh,
    failed,
    note,
    activeRun,
  }
}

export type LifeSteps = ReturnType<typeof makeLifeSteps>
