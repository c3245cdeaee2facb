import { Data, type Deferred, type Effect } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { Reason } from "../../domain/Reason.js"
import type { StartOutcome } from "../../domain/StartOutcome.js"
import type { ExitStatus } from "../../process/ProcessService.js"
import type { DaemonState } from "../DaemonState.js"

/**
 * Where a start request hears back: whether a process was spawned for it (once it exists, or
 * false once nothing will be spawned), then its outcome.
 */
export interface StartReply {
  readonly spawned: Deferred.Deferred<boolean>
  readonly outcome: Deferred.Deferred<StartOutcome>
  /** Told (by the lifecycle, at once) when a process was spawned for this start: its state then. */
  readonly onSpawned?: ((r: DaemonState) => Effect.Effect<void>) | undefined
  /** Told (by the lifecycle, at once) the outcome. */
  readonly onOutcome?: ((o: StartOutcome) => Effect.Effect<void>) | undefined
}

/**
 * `start`: a running daemon is left alone (AlreadyRunning). `restart`: a running daemon is
 * stopped and started again, a stopped one started.
 */
export type StartMode = "start" | "restart"

/**
 * What a daemon's lifecycle fiber reads from its queue, one at a time: requests from outside
 * (start, stop, kill, forget) and what its own run observed (ready, exited, a retry due).
 * `serial` ties an observation to the run or backoff it came from: a stale one is ignored.
 */
export type DaemonCommand = Data.TaggedEnum<{
  Start: {
    readonly def: DaemonDefinition
    readonly mode: StartMode
    readonly reason: Reason
    readonly reply: StartReply
    /** What the restart note adds after the reason, e.g. `src/app.js changed`. */
    readonly detail?: string | undefined
  }
  /**
   * Restarts the daemon only if it runs (a watched file changed), with `def` or its current
   * definition; nobody waits for the new run's outcome. `true` when it was restarted.
   */
  Restart: {
    readonly def: DaemonDefinition | undefined
    readonly reason: Reason
    readonly reply: Deferred.Deferred<boolean>
    /** What the restart note adds after the reason, e.g. `src/app.js changed`. */
    readonly detail?: string | undefined
  }
  /** Stops the process group (the stop signal, then SIGKILL): `true` when it was running. */
  Stop: { readonly reason: Reason; readonly reply: Deferred.Deferred<boolean> }
  /**
   * Stops the process group as a failure (a limit was exceeded): it ends `errored` with
   * `message`, and is retried when retries are left, using one. `true` when it was running.
   */
  Kill: {
    readonly reason: Reason
    readonly message: string
    /** Only this process: a kill decided on a sample of a run that was replaced since is dropped. */
    readonly pid: number | undefined
    readonly reply: Deferred.Deferred<boolean>
  }
  /** Forgets a daemon that does not run (`clean`): `true` when it was forgotten. */
  Forget: { readonly reply: Deferred.Deferred<boolean> }
  /** The run's readiness check passed; `check` is its kind (`output`, `http`, `port`, `cmd`, `delay`). */
  Ready: { readonly serial: number; readonly check: string }
  /** Every readiness check of the run timed out (`cliStatus` 124), or one can never pass (1). */
  NotReady: { readonly serial: number; readonly message: string; readonly cliStatus: number }
  /** The ready run's health check failed `failures` times in a row; `output` is the last attempt's. */
  Unhealthy: { readonly serial: number; readonly failures: number; readonly output: string }
  /** The run's health check passed again after it was unhealthy. */
  Healthy: { readonly serial: number }
  /** The run's process exited. */
  Exited: { readonly serial: number; readonly status: ExitStatus }
  /**
   * Resumes the retries of a daemon whose last run ended while no supervisor ran (or whose
   * retry was pending then): retry `attempt + 1` after the backoff, if the daemon has one left.
   */
  Resume: { readonly attempt: number; readonly exit: ExitStatus; readonly message: string }
  /** The backoff before the next retry is over. */
  RetryDue: { readonly serial: number }
  /** No retry is left. */
  GiveUp: { readonly serial: number }
}>

export const DaemonCommand = Data.taggedEnum<DaemonCommand>()
