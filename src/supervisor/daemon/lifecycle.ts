import { Deferred, Effect, Exit, Option, type Queue, Scope } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { ProcessHandle } from "../../process/ProcessService.js"
import { restartLimit } from "../restartPolicy.js"
import { retryBackoff } from "../retry.js"
import type { DaemonCommand } from "./commands.js"
import type { DaemonContext } from "./context.js"
import { healthy, unhealthy, watchHealth } from "./health.js"
import { idle, type Life, type LifeSteps, makeLifeSteps, tell } from "./life.js"
import { exited, giveUp, notReady, ready, resume, retryDue } from "./observations.js"
import { forget, kill, restart, start, stop } from "./requests.js"
import { adoptRun } from "./run.js"

const isIdle = (life: Life): boolean => life.phase._tag === "Idle"

/** Why the state changes a command makes happen, as its events say (docs/events.md). */
const causeOf = (c: DaemonCommand): string => {
  switch (c._tag) {
    case "Start":
    case "Restart":
    case "Stop":
    case "Kill":
      return c.reason
    case "Forget":
      return "clean"
    case "Ready":
      return "ready"
    case "NotReady":
      return "not_ready"
    case "Unhealthy":
    case "Healthy":
      return "health"
    case "Exited":
      return "exited"
    case "RetryDue":
      return "retry"
    case "GiveUp":
      return "gave_up"
    case "Resume":
      return "resumed"
  }
}

/** One command moves the daemon to its next state (docs/states.md). */
const step = (s: LifeSteps, life: Life, c: DaemonCommand): Effect.Effect<Life> => {
  switch (c._tag) {
    case "Start":
      return start(s, life, c)
    case "Restart":
      return restart(s, life, c)
    case "Stop":
      return stop(s, life, c)
    case "Kill":
      return kill(s, life, c)
    case "Forget":
      return forget(s, life, c)
    case "Ready":
      return ready(s, life, c)
    case "NotReady":
      return notReady(s, life, c)
    case "Unhealthy":
      return unhealthy(s, life, c)
    case "Healthy":
      return healthy(s, life, c)
    case "Exited":
      return exited(s, life, c)
    case "RetryDue":
      return retryDue(s, life, c)
    case "GiveUp":
      return giveUp(s, life, c)
    case "Resume":
      return resume(s, life, c)
  }
}

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
  /** A process a previous supervisor started, and the retries its daemon had used. */
  adopted: Option.Option<{ readonly handle: ProcessHandle; readonly attempt: number }>,
  retire: Effect.Effect<boolean>,
): Effect.Effect<void> =>
  // The scope closed by one `onExit` rather than `Effect.scoped`: each frame under the loop stays
  // on the stack of the daemon's fiber for its whole life (docs/benchmarks.md, memory per daemon).
  Effect.flatMap(Scope.make(), (scope) =>
    Effect.gen(function* () {
      const steps = makeLifeSteps(ctx, first.id.qualified, scope, queue)
      let life: Life = {
        def: first,
        phase: idle,
        attempt: 0,
        retries: retryBackoff(restartLimit(first.config)),
        waiters: [],
        hookRun: undefined,
        serial: 0,
        forgotten: false,
      }
      if (Option.isSome(adopted)) {
        const { handle, attempt } = adopted.value
        const run = yield* adoptRun(steps.runEnv(first), 1, handle)
        const left = Math.max(0, restartLimit(first.config) - attempt)
        const retries = retryBackoff(left)
        life = { ...life, serial: 1, attempt, retries, phase: { _tag: "Active", run } }
        // it was ready before: its health check starts at once
        yield* watchHealth(queue, run)
      }
      // However the fiber ends, no start is left waiting (what is still queued: `answerUnhandled`).
      yield* Scope.addFinalizer(
        scope,
        Effect.suspend(() => tell(life.waiters, steps.interrupted)),
      )
      for (;;) {
        const wasIdle = isIdle(life)
        const command = yield* queue.take
        ctx.setCause(first.id.qualified, causeOf(command))
        life = yield* step(steps, life, command)
        if (life.forgotten && (yield* retire)) return
        // a run ended for good (no retry pending): its log files are closed until the next start
        if (!wasIdle && isIdle(life) && !life.forgotten) yield* ctx.releaseLogs(first.id.qualified)
      }
    }).pipe(Effect.onExit((exit) => Scope.close(scope, exit))),
  )

/** Answers a command no lifecycle will handle (it ended): a start is interrupted, the rest did nothing. */
export const answerUnhandled = (c: DaemonCommand, id: string): void => {
  switch (c._tag) {
    case "Start":
      Deferred.unsafeDone(c.reply.spawned, Exit.succeed(false))
      Deferred.unsafeDone(c.reply.outcome, Exit.succeed({ _tag: "Interrupted", id }))
      return
    case "Restart":
    case "Stop":
    case "Kill":
    case "Forget":
      Deferred.unsafeDone(c.reply, Exit.succeed(false))
      return
    default:
      return
  }
}
