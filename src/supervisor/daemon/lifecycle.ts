import { Deferred, Effect, Either, Exit, Fiber, Option, Queue, Schedule, Scope } from "effect"
import { retryLimit } from "../../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../../domain/DaemonStatus.js"
import type { Reason } from "../../domain/Reason.js"
import { READY_TIMEOUT_STATUS, type StartOutcome } from "../../domain/StartOutcome.js"
import type { ExitStatus, ProcessHandle } from "../../process/ProcessService.js"
import { daemonEnvironment } from "../environment.js"
import type { HookRun, HookVars } from "../hooks/fire.js"
import type { HookName } from "../hooks/HookRunner.js"
import { retrySchedule } from "../retry.js"
import { DaemonCommand, type StartReply } from "./commands.js"
import type { DaemonContext } from "./context.js"
import { afterRetries, describeExit, exitedStatus, readyOutcome, startFailed } from "./outcomes.js"
import { adoptRun, type Run, type RunEnvironment, spawnRun } from "./run.js"

type Phase =
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
interface Life {
  readonly def: DaemonDefinition
  readonly phase: Phase
  /** The retry count of the current sequence of runs (`SUPERVISOR_RETRY_COUNT`). */
  readonly attempt: number
  readonly retries: Schedule.ScheduleDriver<void, unknown, never>
  /** Start requests waiting for the current sequence's outcome (ready, completed, failed). */
  readonly waiters: ReadonlyArray<StartReply>
  /** The environment and user the hooks inherit: the latest spawn's. */
  readonly hookRun: HookRun | undefined
  /** Numbers runs and backoffs: what they report carries it, so stale reports are ignored. */
  readonly serial: number
  /** Forgotten by `clean`: the fiber may end once nothing more is queued for it. */
  readonly forgotten: boolean
}

const idle: Phase = { _tag: "Idle" }

/**
 * One daemon's life: a fiber that takes the commands of its queue one at a time (start, stop,
 * restart, kill, forget, and what its run observed: ready, exited, a retry due) and moves the
 * daemon from state to state (docs/states.md). Commands are never handled concurrently, so no
 * two processes of one daemon ever run. `retire` asks the supervisor to drop a forgotten
 * daemon's queue: true when nothing more was queued, and the fiber ends.
 */
export const daemonLifecycle = (
  ctx: DaemonContext,
  first: DaemonDefinition,
  queue: Queue.Queue<DaemonCommand>,
  adopted: Option.Option<ProcessHandle>,
  retire: Effect.Effect<boolean>,
): Effect.Effect<void> =>
  Effect.scoped(
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const id = first.id.qualified
      const runEnv = (def: DaemonDefinition): RunEnvironment => ({ ctx, def, scope, queue })
      const driver = (def: DaemonDefinition) => Schedule.driver(retrySchedule(retryLimit(def.config.retry)))

      const fire = (life: Life, hook: HookName, vars: Omit<HookVars, "retryCount"> = {}) =>
        ctx.fireHook(life.def, hook, life.hookRun ?? { env: daemonEnvironment(ctx.baseEnv, life.def, 0) }, {
          retryCount: life.attempt,
          ...vars,
        })

      const tell = (waiters: ReadonlyArray<StartReply>, outcome: StartOutcome) =>
        Effect.forEach(
          waiters,
          (w) =>
            Deferred.succeed(w.spawned, false).pipe(Effect.zipRight(Deferred.succeed(w.outcome, outcome))),
          { discard: true },
        )
      const interrupted: StartOutcome = { _tag: "Interrupted", id }

      /** Stops the run's process group (signal, then SIGKILL) and closes the run; `final` is its status then. */
      const stopRun = (life: Life, run: Run, final: (s: ExitStatus) => DaemonStatus) =>
        Effect.gen(function* () {
          yield* ctx.update(id, (r) => ({ ...r, status: { type: "stopping" } }))
          const s = yield* ctx.processes.stop(
            run.handle,
            life.def.config.stop_signal.signal,
            life.def.config.stop_signal.timeout ?? ctx.stopTimeout,
          )
          yield* ctx.update(id, (r) => ({
            ...r,
            status: final(s),
            pid: null,
            startTime: null,
            handle: null,
          }))
          yield* Scope.close(run.scope, Exit.void)
          return s
        })

      /** Stops a run as asked (`reason`): stopped, with on_stop (but at shutdown) and on_exit. */
      const stopActive = (life: Life, run: Run, reason: Reason) =>
        Effect.gen(function* () {
          const s = yield* stopRun(life, run, (s) => ({
            type: "stopped",
            exit_code: s.code,
            signal: s.signal,
          }))
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
            yield* ctx.update(id, (r) => ({
              ...r,
              status: { type: "failed", message },
              pid: null,
              handle: null,
            }))
            const next: Life = { ...life, serial, phase: idle, waiters: [] }
            yield* fire(next, "on_fail")
            yield* tell(life.waiters, startFailed(id, message, undefined, [], 1))
            return next
          }
          const run = spawned.right
          yield* Effect.forEach(life.waiters, (w) => Deferred.succeed(w.spawned, true), { discard: true })
          return { ...life, serial, phase: { _tag: "Active", run }, hookRun: run.hookRun }
        })

      /** A fresh sequence: the definition recorded, the retry count and schedule reset. */
      const startFresh = (life: Life, def: DaemonDefinition, waiters: ReadonlyArray<StartReply>) =>
        Effect.gen(function* () {
          yield* ctx.register(def)
          const retries = yield* driver(def)
          return yield* spawnNext({
            ...life,
            def,
            attempt: 0,
            retries,
            waiters,
            phase: idle,
            forgotten: false,
          })
        })

      /** The run failed (`exit`): the next retry when the schedule allows one, else give up. */
      const failed = (life: Life, exit: ExitStatus, message: string) =>
        Effect.gen(function* () {
          const serial = life.serial + 1
          yield* ctx.update(id, (r) => ({ ...r, retryPending: true }))
          const fiber = yield* life.retries.next(undefined).pipe(
            Effect.matchEffect({
              onFailure: () => Queue.offer(queue, DaemonCommand.GiveUp({ serial })),
              onSuccess: () => Queue.offer(queue, DaemonCommand.RetryDue({ serial })),
            }),
            Effect.asVoid,
            Effect.forkIn(scope),
          )
          return {
            ...life,
            serial,
            phase: { _tag: "BackingOff", serial, fiber, exit, message },
          } satisfies Life
        })

      const activeRun = (life: Life, serial: number): Run | undefined =>
        life.phase._tag === "Active" && life.phase.run.serial === serial ? life.phase.run : undefined

      const start = (life: Life, c: Extract<DaemonCommand, { _tag: "Start" }>): Effect.Effect<Life> =>
        Effect.gen(function* () {
          const { reply } = c
          if (life.phase._tag === "Active" && c.mode === "start") {
            yield* tell([reply], { _tag: "AlreadyRunning", id, pid: life.phase.run.handle.pid })
            return life
          }
          if (yield* ctx.isDisabled(id)) {
            yield* tell([reply], { _tag: "Disabled", id })
            return life
          }
          if (yield* ctx.shuttingDown) {
            yield* tell([reply], interrupted)
            return life
          }
          if (c.reason !== "cli" && c.reason !== "api")
            yield* Effect.logInfo(
              `${life.phase._tag === "Active" ? "restarting" : "starting"} ${id} (${c.reason})`,
            )
          // A start still waiting on the run replaced here hears the new run's outcome.
          if (life.phase._tag === "Active") yield* stopActive(life, life.phase.run, c.reason)
          if (life.phase._tag === "BackingOff") yield* Fiber.interrupt(life.phase.fiber)
          yield* ctx.update(id, (r) => (r.retryPending ? { ...r, retryPending: false } : r))
          return yield* startFresh(life, c.def, [...life.waiters, reply])
        })

      const stop = (life: Life, reason: Reason, reply: Deferred.Deferred<boolean>) =>
        Effect.gen(function* () {
          switch (life.phase._tag) {
            case "Idle":
              yield* Deferred.succeed(reply, false)
              return life
            case "BackingOff": {
              yield* Fiber.interrupt(life.phase.fiber)
              yield* ctx.update(id, (r) => ({
                ...r,
                retryPending: false,
                status: r.status.type === "stopped" ? r.status : { type: "stopped", message: "stopped" },
              }))
              yield* tell(life.waiters, interrupted)
              yield* Deferred.succeed(reply, false)
              return { ...life, phase: idle, waiters: [] }
            }
            case "Active": {
              yield* stopActive(life, life.phase.run, reason)
              yield* tell(life.waiters, interrupted)
              yield* Deferred.succeed(reply, true)
              return { ...life, phase: idle, waiters: [] }
            }
          }
        })

      const step = (life: Life, command: DaemonCommand): Effect.Effect<Life> =>
        DaemonCommand.$match(command, {
          Start: (c) => start(life, c),
          Restart: ({ def, reason, reply }) =>
            Effect.gen(function* () {
              if (life.phase._tag !== "Active" || (yield* ctx.isDisabled(id)) || (yield* ctx.shuttingDown)) {
                yield* Deferred.succeed(reply, false)
                return life
              }
              const ignored = {
                spawned: yield* Deferred.make<boolean>(),
                outcome: yield* Deferred.make<StartOutcome>(),
              }
              const next = yield* start(
                life,
                DaemonCommand.Start({ def: def ?? life.def, mode: "restart", reason, reply: ignored }),
              )
              yield* Deferred.succeed(reply, true)
              return next
            }),
          Stop: ({ reason, reply }) => stop(life, reason, reply),
          Kill: ({ reason, message, reply }) =>
            Effect.gen(function* () {
              if (life.phase._tag !== "Active") {
                yield* Deferred.succeed(reply, false)
                return life
              }
              yield* Effect.logInfo(`killing ${id} (${reason}): ${message}`)
              const s = yield* stopRun(life, life.phase.run, (s) => ({
                type: "errored",
                exit_code: s.code,
                signal: s.signal,
                message,
              }))
              yield* fire(life, "on_exit", { exit: s, reason: "fail" })
              yield* Deferred.succeed(reply, true)
              return yield* failed(life, s, `${id} ${message}`)
            }),
          Forget: ({ reply }) =>
            Effect.gen(function* () {
              if (life.phase._tag === "Active") {
                yield* Deferred.succeed(reply, false)
                return life
              }
              if (life.phase._tag === "BackingOff") yield* Fiber.interrupt(life.phase.fiber)
              yield* tell(life.waiters, interrupted)
              yield* ctx.forget(id)
              yield* Deferred.succeed(reply, true)
              return { ...life, phase: idle, waiters: [], forgotten: true }
            }),
          Ready: ({ serial }) =>
            Effect.gen(function* () {
              const run = activeRun(life, serial)
              if (run === undefined || run.ready) return life
              yield* ctx.update(id, (r) => ({ ...r, status: { type: "running" } }))
              yield* fire(life, "on_ready")
              yield* tell(life.waiters, readyOutcome(id, run, life.def.config.port?.expect ?? []))
              const next: Life = {
                ...life,
                phase: { _tag: "Active", run: { ...run, ready: true } },
                waiters: [],
              }
              return next
            }),
          NotReady: ({ serial, message }) =>
            Effect.gen(function* () {
              const run = activeRun(life, serial)
              if (run === undefined) return life
              // Not retried: the checks had their whole timeout, and a retry would wait as long again.
              const s = yield* stopRun(life, run, (s) => ({
                type: "errored",
                exit_code: s.code,
                signal: s.signal,
                message,
              }))
              yield* fire(life, "on_exit", { exit: s, reason: "fail" })
              const output = yield* ctx.lastLines(id, 20)
              yield* fire(life, "on_fail", { exit: s })
              yield* tell(life.waiters, startFailed(id, message, s, output, READY_TIMEOUT_STATUS))
              return { ...life, phase: idle, waiters: [] }
            }),
          Exited: ({ serial, status }) =>
            Effect.gen(function* () {
              const run = activeRun(life, serial)
              if (run === undefined) return life
              yield* Scope.close(run.scope, Exit.void)
              const final = exitedStatus(status)
              yield* ctx.update(id, (r) => ({
                ...r,
                status: final,
                pid: null,
                startTime: null,
                handle: null,
              }))
              yield* fire(life, "on_exit", {
                exit: status,
                reason: final.type === "stopped" ? "exit" : "fail",
              })
              if (final.type === "errored")
                return yield* failed(life, status, `${id} ${describeExit(status)}`)
              // exited 0 before it was ready: a one-shot task that is done
              if (!run.ready) yield* tell(life.waiters, { _tag: "Completed", id })
              return { ...life, phase: idle, waiters: [] }
            }),
          RetryDue: ({ serial }) =>
            Effect.gen(function* () {
              if (life.phase._tag !== "BackingOff" || life.phase.serial !== serial) return life
              const next: Life = { ...life, attempt: life.attempt + 1, phase: idle }
              yield* ctx.update(id, (r) => ({ ...r, retryPending: false }))
              yield* fire(next, "on_retry", { exit: life.phase.exit })
              return yield* spawnNext(next)
            }),
          GiveUp: ({ serial }) =>
            Effect.gen(function* () {
              if (life.phase._tag !== "BackingOff" || life.phase.serial !== serial) return life
              const { exit, message } = life.phase
              yield* ctx.update(id, (r) => ({ ...r, retryPending: false }))
              const output = yield* ctx.lastLines(id, 20)
              yield* fire(life, "on_fail", { exit })
              yield* tell(
                life.waiters,
                startFailed(id, `${message}${afterRetries(life.attempt)}`, exit, output, 1),
              )
              return { ...life, phase: idle, waiters: [] }
            }),
        })

      let life: Life = {
        def: first,
        phase: idle,
        attempt: 0,
        retries: yield* driver(first),
        waiters: [],
        hookRun: undefined,
        serial: 0,
        forgotten: false,
      }
      if (Option.isSome(adopted)) {
        const run = yield* adoptRun(runEnv(first), 1, adopted.value)
        life = { ...life, serial: 1, phase: { _tag: "Active", run } }
      }
      // However the fiber ends, no start is left waiting (what is still queued: `answerUnhandled`).
      yield* Effect.addFinalizer(() => Effect.suspend(() => tell(life.waiters, interrupted)))
      for (;;) {
        life = yield* step(life, yield* Queue.take(queue))
        if (life.forgotten && (yield* retire)) return
      }
    }),
  )

/** Answers a command no lifecycle will handle (it ended): a start is interrupted, the rest did nothing. */
export const answerUnhandled = (c: DaemonCommand, id: string) =>
  DaemonCommand.$match(c, {
    Start: ({ reply }) =>
      Deferred.succeed(reply.spawned, false).pipe(
        Effect.zipRight(Deferred.succeed(reply.outcome, { _tag: "Interrupted", id })),
      ),
    Restart: ({ reply }) => Deferred.succeed(reply, false),
    Stop: ({ reply }) => Deferred.succeed(reply, false),
    Kill: ({ reply }) => Deferred.succeed(reply, false),
    Forget: ({ reply }) => Deferred.succeed(reply, false),
    Ready: () => Effect.void,
    NotReady: () => Effect.void,
    Exited: () => Effect.void,
    RetryDue: () => Effect.void,
    GiveUp: () => Effect.void,
  }).pipe(Effect.asVoid)
