import { Effect, Exit, Scope } from "effect"
import { restartLimit } from "../restartPolicy.js"
import { retryBackoff } from "../retry.js"
import type { DaemonCommand } from "./commands.js"
import { watchHealth } from "./health.js"
import { idle, type Life, type LifeSteps, tell } from "./life.js"
import {
  afterRetries,
  alwaysNote,
  describeExit,
  exitedStatus,
  exitNote,
  readyOutcome,
  retryNote,
  startFailed,
} from "./outcomes.js"

// What a daemon's lifecycle does with what its run and its backoff observed: the readiness
// check passed or timed out, the process exited, a retry is due, or no retry is left. An
// observation of a run or backoff that is over (another `serial`) is ignored.

type Command<T extends DaemonCommand["_tag"]> = Extract<DaemonCommand, { readonly _tag: T }>

export const ready = (s: LifeSteps, life: Life, c: Command<"Ready">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const run = s.activeRun(life, c.serial)
    if (run === undefined || run.ready) return life
    yield* s.ctx.update(s.id, (r) => ({ ...r, status: { type: "running" }, readyAt: Date.now() }))
    yield* s.ctx.publish({ _tag: "ReadinessPassed", id: s.id, pid: run.handle.pid, check: c.check })
    yield* s.fire(life, "on_ready")
    yield* tell(life.waiters, readyOutcome(s.id, run, life.def.config.port?.expect ?? []))
    const next: Life = { ...life, phase: { _tag: "Active", run: { ...run, ready: true } }, waiters: [] }
    yield* watchHealth(s.runEnv(life.def).queue, run)
    return next
  })

export const notReady = (s: LifeSteps, life: Life, c: Command<"NotReady">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const run = s.activeRun(life, c.serial)
    if (run === undefined) return life
    // Not retried: the checks had their whole timeout, and a retry would wait as long again;
    // a port held by another process stays held.
    yield* s.note(`not ready: ${c.message}; stopping it`)
    yield* s.ctx.publish({
      _tag: "ReadinessFailed",
      id: s.id,
      message: c.message,
      output: [...(yield* s.ctx.lastLines(s.id, 20))],
    })
    const status = yield* s.stopRun(life, run, (x) => ({
      type: "errored",
      exit_code: x.code,
      signal: x.signal,
      message: c.message,
    }))
    yield* s.fire(life, "on_exit", { exit: status, reason: "fail" })
    const output = yield* s.ctx.lastLines(s.id, 20)
    yield* s.failedForGood(life, c.message, status)
    yield* tell(life.waiters, startFailed(s.id, c.message, status, output, c.cliStatus))
    return { ...life, phase: idle, waiters: [] }
  })

export const exited = (s: LifeSteps, life: Life, c: Command<"Exited">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const run = s.activeRun(life, c.serial)
    if (run === undefined) return life
    yield* Scope.close(run.scope, Exit.void)
    const { config } = life.def
    // `stopped` for an exit code of `success_exit_codes`, else `errored`
    const final = exitedStatus(c.status, config.success_exit_codes)
    const always = config.restart === "always"
    // a crash, a success other than 0, or any exit that is restarted: the log says it (an exit 0
    // is a finished task or a clean exit: the daemon's own output says it)
    if (final.type === "errored" || always || c.status.code !== 0)
      yield* s.note(
        final.type === "errored" || c.status.code === 0
          ? exitNote(c.status)
          : `${exitNote(c.status)} (a success)`,
      )
    yield* s.ctx.update(s.id, (r) => ({ ...r, status: final, pid: null, startTime: null, handle: null }))
    // before a retry spawns a new run, and before a start hears that a one-shot task is done
    yield* s.endLeftovers(life, run)
    // A crash is retried as `restart` and `retry` allow: on_exit waits until the daemon's runs
    // end for good.
    if (final.type === "errored") return yield* s.failed(life, c.status, `${s.id} ${describeExit(c.status)}`)
    // a success before it was ready: a one-shot task that is done
    if (!run.ready) yield* tell(life.waiters, { _tag: "Completed", id: s.id })
    // `restart = "always"`: the next run after the backoff, as after a crash
    if (always)
      return yield* s.failed({ ...life, waiters: [] }, c.status, `${s.id} ${describeExit(c.status)}`)
    yield* s.fire(life, "on_exit", { exit: c.status, reason: "exit" })
    return { ...life, phase: idle, waiters: [] }
  })

export const retryDue = (s: LifeSteps, life: Life, c: Command<"RetryDue">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag !== "BackingOff" || life.phase.serial !== c.serial) return life
    const next: Life = { ...life, attempt: life.attempt + 1, phase: idle }
    yield* s.ctx.update(s.id, (r) => ({ ...r, retryPending: false, nextRetry: null }))
    yield* s.note(
      `restarting: ${
        life.def.config.restart === "always"
          ? alwaysNote(next.attempt)
          : retryNote(next.attempt, restartLimit(life.def.config))
      }`,
    )
    yield* s.fire(next, "on_retry", { exit: life.phase.exit })
    return yield* s.spawnNext(next)
  })

export const giveUp = (s: LifeSteps, life: Life, c: Command<"GiveUp">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag !== "BackingOff" || life.phase.serial !== c.serial) return life
    const { exit, message } = life.phase
    yield* s.ctx.update(s.id, (r) => ({ ...r, retryPending: false, nextRetry: null }))
    if (life.attempt > 0) yield* s.note(`not restarting: no retry left${afterRetries(life.attempt)}`)
    const output = yield* s.ctx.lastLines(s.id, 20)
    yield* s.fire(life, "on_exit", { exit, reason: "fail" })
    const why = `${message}${afterRetries(life.attempt)}`
    yield* s.failedForGood(life, why, exit)
    yield* tell(life.waiters, startFailed(s.id, why, exit, output, 1))
    return { ...life, phase: idle, waiters: [] }
  })

/** The retries of a daemon whose run ended while no supervisor ran, resumed where they were. */
export const resume = (s: LifeSteps, life: Life, c: Command<"Resume">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag !== "Idle") return life
    const left = Math.max(0, restartLimit(life.def.config) - c.attempt)
    const retries = retryBackoff(left)
    yield* Effect.logInfo(`${s.id}: resuming its retries (${c.attempt} used)`)
    return yield* s.failed({ ...life, attempt: c.attempt, retries }, c.exit, c.message)
  })
