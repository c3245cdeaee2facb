import { Deferred, Duration, Effect, Fiber } from "effect"
import type { Reason } from "../../domain/Reason.js"
import type { StartOutcome } from "../../domain/StartOutcome.js"
import type { AutomationSource } from "../../domain/SupervisorEvent.js"
import { DaemonCommand } from "./commands.js"
import { idle, type Life, type LifeSteps, tell } from "./life.js"

// What a daemon's lifecycle does when asked: start, restart, stop, kill, forget.

/** Why a daemon is restarted, as its log says it: `manual` (a person), or the automation's name. */
const restartReason = (reason: Reason): string => (reason === "cli" || reason === "api" ? "manual" : reason)

type Command<T extends DaemonCommand["_tag"]> = Extract<DaemonCommand, { readonly _tag: T }>

/** What acted when the supervisor's automation asks, when the request does not say (docs/events.md). */
const automationDetail: Partial<Record<Reason, string>> = {
  cron: "its cron schedule is due",
  proxy: "a request came for it through the proxy",
  shell: "a shell is in its project",
  boot: "boot_start",
  watch: "a watched file changed",
  limit: "a limit was exceeded",
  dependency: "a daemon it depends on (restart_dependents) restarted and is ready again",
}

/**
 * Publishes what the automation (`watch`, `cron`, `limit`, `shell`, `proxy`, `boot`, `dependency`)
 * does to the daemon.
 */
const automationAction = (s: LifeSteps, reason: Reason, action: string, detail: string | undefined) => {
  const fallback =
    reason === "shell" && action === "stop" ? "no shell is left in its project" : automationDetail[reason]
  if (fallback === undefined || reason === "shutdown") return Effect.void
  return s.ctx.publish({
    _tag: "AutomationAction",
    id: s.id,
    source: reason as AutomationSource,
    action,
    detail: detail ?? fallback,
  })
}

export const start = (s: LifeSteps, life: Life, c: Command<"Start">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const { ctx, id } = s
    if (life.phase._tag === "Active" && c.mode === "start") {
      yield* tell([c.reply], { _tag: "AlreadyRunning", id, pid: life.phase.run.handle.pid })
      return life
    }
    if (yield* ctx.isDisabled(id)) {
      yield* tell([c.reply], { _tag: "Disabled", id })
      return life
    }
    if (yield* ctx.shuttingDown) {
      yield* tell([c.reply], s.interrupted)
      return life
    }
    if (c.reason !== "cli" && c.reason !== "api")
      yield* Effect.logInfo(`${life.phase._tag === "Active" ? "restarting" : "starting"} ${id} (${c.reason})`)
    yield* automationAction(s, c.reason, life.phase._tag === "Idle" ? "start" : "restart", c.detail)
    // A running daemon, or one waiting for a retry, is restarted: its log says why.
    if (life.phase._tag !== "Idle")
      yield* s.note(`restarting: ${restartReason(c.reason)}${c.detail === undefined ? "" : ` (${c.detail})`}`)
    // A start still waiting on the run replaced here hears the new run's outcome.
    if (life.phase._tag === "Active") {
      yield* s.stopActive(life, life.phase.run, c.reason)
      // `settings.supervisor.restart_delay`: time for what the old run held to be let go
      if (Duration.toMillis(ctx.restartDelay) > 0) yield* Effect.sleep(ctx.restartDelay)
    }
    if (life.phase._tag === "BackingOff") yield* Fiber.interrupt(life.phase.fiber)
    yield* ctx.update(id, (r) => (r.retryPending ? { ...r, retryPending: false, nextRetry: null } : r))
    return yield* s.startFresh(life, c.def, [...life.waiters, c.reply])
  })

export const restart = (s: LifeSteps, life: Life, c: Command<"Restart">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag !== "Active" || (yield* s.ctx.isDisabled(s.id)) || (yield* s.ctx.shuttingDown)) {
      yield* Deferred.succeed(c.reply, false)
      return life
    }
    // nobody waits for the new run's outcome
    const reply = { spawned: yield* Deferred.make<boolean>(), outcome: yield* Deferred.make<StartOutcome>() }
    const def = c.def ?? life.def
    const next = yield* start(
      s,
      life,
      DaemonCommand.Start({ def, mode: "restart", reason: c.reason, reply, detail: c.detail }),
    )
    yield* Deferred.succeed(c.reply, true)
    return next
  })

export const stop = (s: LifeSteps, life: Life, c: Command<"Stop">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    switch (life.phase._tag) {
      case "Idle":
        yield* Deferred.succeed(c.reply, false)
        return life
      case "BackingOff": {
        yield* automationAction(s, c.reason, "stop", undefined)
        yield* Fiber.interrupt(life.phase.fiber)
        // At shutdown the pending retry stays recorded: the next supervisor resumes it.
        if (c.reason !== "shutdown") {
          yield* s.ctx.update(s.id, (r) => ({
            ...r,
            retryPending: false,
            nextRetry: null,
            status: r.status.type === "stopped" ? r.status : { type: "stopped", message: "stopped" },
          }))
          // its runs end here, for good
          yield* s.fire(life, "on_exit", { exit: life.phase.exit, reason: "stop" })
        }
        yield* tell(life.waiters, s.interrupted)
        yield* Deferred.succeed(c.reply, false)
        return { ...life, phase: idle, waiters: [] }
      }
      case "Active": {
        yield* automationAction(s, c.reason, "stop", undefined)
        yield* s.stopActive(life, life.phase.run, c.reason)
        yield* tell(life.waiters, s.interrupted)
        yield* Deferred.succeed(c.reply, true)
        return { ...life, phase: idle, waiters: [] }
      }
    }
  })

export const kill = (s: LifeSteps, life: Life, c: Command<"Kill">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag !== "Active" || (c.pid !== undefined && c.pid !== life.phase.run.handle.pid)) {
      yield* Deferred.succeed(c.reply, false)
      return life
    }
    yield* Effect.logInfo(`killing ${s.id} (${c.reason}): ${c.message}`)
    yield* automationAction(s, c.reason, "kill", c.message)
    // the message is the log's line: "killed: memory 161.2 MB over memory_limit 80 MB"
    yield* s.note(c.message)
    const status = yield* s.stopRun(life, life.phase.run, (x) => ({
      type: "errored",
      exit_code: x.code,
      signal: x.signal,
      message: c.message,
    }))
    yield* Deferred.succeed(c.reply, true)
    return yield* s.failed(life, status, `${s.id} ${c.message}`)
  })

export const forget = (s: LifeSteps, life: Life, c: Command<"Forget">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    if (life.phase._tag === "Active") {
      yield* Deferred.succeed(c.reply, false)
      return life
    }
    if (life.phase._tag === "BackingOff") yield* Fiber.interrupt(life.phase.fiber)
    yield* tell(life.waiters, s.interrupted)
    yield* s.ctx.forget(s.id)
    yield* Deferred.succeed(c.reply, true)
    return { ...life, phase: idle, waiters: [], forgotten: true }
  })
