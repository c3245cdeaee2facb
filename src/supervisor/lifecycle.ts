import { Deferred, type Duration, Effect, Exit, Option } from "effect"
import { retryLimit } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../domain/DaemonStatus.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import {
  type ExitStatus,
  type ProcessHandle,
  type ProcessServiceShape,
  SpawnError,
} from "../process/ProcessService.js"
import { retryDelay } from "./backoff.js"
import { daemonEnvironment, shellArgv } from "./environment.js"
import type { Runtime } from "./Runtime.js"
import { resolveDaemonUser } from "./user.js"

/** What one daemon's lifecycle fiber needs from the supervisor around it. */
export interface LifecycleContext {
  readonly processes: ProcessServiceShape
  readonly shell: string
  /** `settings.supervisor.user`: the default user daemons run as. */
  readonly settingsUser: string | undefined
  readonly baseEnv: Readonly<Record<string, string | undefined>>
  readonly stopTimeout: Duration.Duration
  /** Prepares the log files and starts following them; returns the raw output file. */
  readonly prepareLogs: (id: string) => Effect.Effect<string>
  /** The daemon's last output lines (after its output was indexed). */
  readonly lastLines: (id: string, n: number) => Effect.Effect<ReadonlyArray<string>>
  /** Replaces the runtime record of the daemon (and persists it). */
  readonly update: (id: string, f: (r: Runtime) => Runtime) => Effect.Effect<void>
  /** Waits until the daemon is ready; fails never, resolves "ready" or the exit status if it exited first. */
  readonly waitReady: (def: DaemonDefinition, handle: ProcessHandle) => Effect.Effect<"ready" | ExitStatus>
}

const exitStatus = (s: ExitStatus, message?: string): DaemonStatus => {
  if (!s.known)
    return { type: "stopped", exit_code: null, signal: null, message: message ?? "exit status unknown" }
  if (s.code === 0) return { type: "stopped", exit_code: 0, signal: null }
  return {
    type: "errored",
    exit_code: s.code,
    signal: s.signal,
    message: s.signal ? `killed by ${s.signal}` : `exited with code ${s.code}`,
  }
}

const describeExit = (s: ExitStatus) =>
  s.signal ? `was killed by ${s.signal}` : s.known ? `exited with code ${s.code}` : "exited"

type RunResult =
  | { readonly _tag: "SpawnFailed"; readonly error: SpawnError }
  | { readonly _tag: "Exited"; readonly status: ExitStatus; readonly beforeReady: boolean }

/**
 * One daemon's whole life: spawn, wait until ready, wait for the exit, decide
 * (done, retry with backoff, or give up). Interrupting the fiber stops the
 * process group: the configured signal, then SIGKILL after the timeout.
 * `ready` is completed exactly once with the outcome a start request reports;
 * `spawned` once the first process exists and is recorded (or could not be spawned).
 */
export const lifecycle = (
  ctx: LifecycleContext,
  def: DaemonDefinition,
  ready: Deferred.Deferred<StartOutcome>,
  spawned: Deferred.Deferred<void>,
  adopted: Option.Option<ProcessHandle>,
) => {
  const id = def.id.qualified
  const limit = retryLimit(def.config.retry)
  const signal = def.config.stop_signal.signal
  const timeout = def.config.stop_signal.timeout ?? ctx.stopTimeout

  const stopGroup = (handle: ProcessHandle) =>
    Effect.gen(function* () {
      yield* ctx.update(id, (r) => ({ ...r, status: { type: "stopping" } }))
      const s = yield* ctx.processes.stop(handle, signal, timeout)
      yield* ctx.update(id, (r) => ({
        ...r,
        status: { type: "stopped", exit_code: s.code, signal: s.signal },
        pid: null,
        startTime: null,
        handle: null,
      }))
      yield* Deferred.succeed(ready, { _tag: "Interrupted", id })
    })

  const spawn = (attempt: number) =>
    Effect.gen(function* () {
      const user = resolveDaemonUser({
        daemonUser: def.config.user,
        settingsUser: ctx.settingsUser,
        env: ctx.baseEnv,
        currentUid: process.getuid?.() ?? 0,
      })
      if (user !== undefined && "error" in user) {
        return yield* new SpawnError({
          id,
          command: def.config.run,
          message: `cannot start daemon ${id}: ${user.error}`,
        })
      }
      const outputFile = yield* ctx.prepareLogs(id)
      const handle = yield* ctx.processes.spawn({
        id,
        command: def.config.run,
        shell: shellArgv(ctx.shell),
        cwd: def.config.dir,
        env: daemonEnvironment(ctx.baseEnv, def, attempt),
        outputFile,
        ...(user !== undefined ? { uid: user.uid, gid: user.gid } : {}),
      })
      yield* ctx.update(id, (r) => ({
        ...r,
        status: { type: "waiting" },
        pid: handle.pid,
        startTime: handle.startTime,
        startedAt: Date.now(),
        retryCount: attempt,
        handle,
      }))
      return handle
    })

  const runOnce = (attempt: number, existing: Option.Option<ProcessHandle>): Effect.Effect<RunResult> =>
    Effect.scoped(
      Effect.gen(function* () {
        const acquired = yield* Effect.acquireRelease(
          Option.match(existing, { onNone: () => spawn(attempt), onSome: Effect.succeed }).pipe(
            Effect.either,
          ),
          (h, exit) => (h._tag === "Right" && Exit.isInterrupted(exit) ? stopGroup(h.right) : Effect.void),
        )
        if (acquired._tag === "Left") return { _tag: "SpawnFailed", error: acquired.left } as const
        const handle = acquired.right
        yield* Deferred.succeed(spawned, undefined)
        if (Option.isNone(existing)) {
          const r = yield* ctx.waitReady(def, handle)
          if (r !== "ready") return { _tag: "Exited", status: r, beforeReady: true } as const
        }
        yield* ctx.update(id, (r) => ({ ...r, status: { type: "running" } }))
        yield* Deferred.succeed(ready, { _tag: "Ready", id, pid: handle.pid })
        const status = yield* handle.exit
        return { _tag: "Exited", status, beforeReady: false } as const
      }),
    )

  // Interrupted while waiting to retry (no process): the daemon is stopped, not errored.
  const onStopWithoutProcess = ctx
    .update(id, (r) =>
      r.handle === null && r.status.type !== "stopped"
        ? { ...r, status: { type: "stopped", message: "stopped" } }
        : r,
    )
    .pipe(Effect.zipRight(Deferred.succeed(ready, { _tag: "Interrupted", id })))

  return Effect.gen(function* () {
    let attempt = 0
    let existing = adopted
    for (;;) {
      const result = yield* runOnce(attempt, existing)
      existing = Option.none()
      if (result._tag === "SpawnFailed") {
        const message = result.error.message
        yield* ctx.update(id, (r) => ({ ...r, status: { type: "failed", message }, pid: null, handle: null }))
        yield* Deferred.succeed(spawned, undefined)
        yield* Deferred.succeed(ready, {
          _tag: "StartFailed",
          id,
          message,
          exit_code: null,
          signal: null,
          output: [],
          cli_status: 1,
        })
        return
      }
      const { status, beforeReady } = result
      const final = exitStatus(
        status,
        "exited; its exit status is unknown (it was adopted after a supervisor restart)",
      )
      yield* ctx.update(id, (r) => ({ ...r, status: final, pid: null, startTime: null, handle: null }))
      if (final.type === "stopped") {
        if (beforeReady) yield* Deferred.succeed(ready, { _tag: "Completed", id })
        return
      }
      if (attempt < limit) {
        attempt++
        yield* Effect.sleep(retryDelay(attempt))
        continue
      }
      const output = yield* ctx.lastLines(id, 20)
      yield* Deferred.succeed(ready, {
        _tag: "StartFailed",
        id,
        message: `${id} ${describeExit(status)}${attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : ""}`,
        exit_code: status.code,
        signal: status.signal,
        output: [...output],
        cli_status: 1,
      })
      return
    }
  }).pipe(Effect.onInterrupt(() => onStopWithoutProcess))
}
