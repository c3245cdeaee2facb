import { Clock, Effect, Queue, Scope } from "effect"
import { unhealthyMessage } from "../health/spec.js"
import { restartLimit } from "../restartPolicy.js"
import { nextRetry } from "../retry.js"
import { DaemonCommand } from "./commands.js"
import type { Life, LifeSteps } from "./life.js"
import { retryNote } from "./outcomes.js"
import type { Run } from "./run.js"

// A ready daemon's health check (docs/health.md): it is checked while the run's scope is open and
// tells the lifecycle when the daemon turns unhealthy and when it is healthy again.

type Command<T extends DaemonCommand["_tag"]> = Extract<DaemonCommand, { readonly _tag: T }>

/** Starts the run's health check, if it has one: it ends with the run's scope. */
export const watchHealth = (queue: Queue.Enqueue<DaemonCommand>, run: Run): Effect.Effect<void> => {
  const health = run.health
  if (health === undefined) return Effect.void
  const serial = run.serial
  return health
    .watch(run.handle, {
      unhealthy: (failures, last) =>
        Queue.offer(queue, DaemonCommand.Unhealthy({ serial, failures, output: last.output })),
      healthy: Queue.offer(queue, DaemonCommand.Healthy({ serial })),
    })
    .pipe(Scope.extend(run.scope))
}

/**
 * The check failed `failures` times in a row: the daemon is `unhealthy` (its log says why, and
 * on_unhealthy fires), then restarted as after a crash when its restart policy has a restart left
 * (`retry`, or always with `restart = "always"`), using one. With none left it stays unhealthy,
 * checked on, until a check passes.
 */
export const unhealthy = (s: LifeSteps, life: Life, c: Command<"Unhealthy">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const run = s.activeRun(life, c.serial)
    if (run === undefined || !run.ready || run.health === undefined) return life
    const message = unhealthyMessage(run.health.spec, c.failures, c.output)
    const step = yield* nextRetry(life.retries, yield* Clock.currentTimeMillis)
    const limit = restartLimit(life.def.config)
    yield* s.note(
      `unhealthy: ${message}; ${
        step === undefined
          ? life.def.config.restart === "never"
            ? 'not restarting: restart = "never"'
            : `not restarting: no retry left (retry = ${life.def.config.retry})`
          : `restarting it (${retryNote(life.attempt + 1, limit)})`
      }`,
    )
    yield* s.ctx.update(s.id, (r) => ({ ...r, status: { type: "unhealthy", message } }))
    yield* s.fire(life, "on_unhealthy", { healthOutput: c.output })
    if (step === undefined) return life
    yield* s.ctx.publish({
      _tag: "AutomationAction",
      id: s.id,
      source: "health",
      action: "restart",
      detail: message,
    })
    // Stopped as a crash: unhealthy until its process is gone, then errored, and retried.
    const status = yield* s.stopRun(
      life,
      run,
      (x) => ({ type: "errored", exit_code: x.code, signal: x.signal, message: `unhealthy: ${message}` }),
      { type: "unhealthy", message },
    )
    return yield* s.failed(life, status, `${s.id} was unhealthy: ${message}`)
  })

/** A check passed after the daemon was unhealthy (and not restarted): it is running again. */
export const healthy = (s: LifeSteps, life: Life, c: Command<"Healthy">): Effect.Effect<Life> =>
  Effect.gen(function* () {
    const run = s.activeRun(life, c.serial)
    if (run === undefined || run.health === undefined) return life
    const now = yield* s.ctx.current(s.id)
    if (now?.status.type !== "unhealthy") return life
    yield* s.note(`healthy again: ${run.health.spec.check._tag} check passed`)
    yield* s.ctx.update(s.id, (r) => ({ ...r, status: { type: "running" } }))
    return life
  })
