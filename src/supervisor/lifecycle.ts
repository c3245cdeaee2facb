import { Deferred, type Duration, Effect, Exit, Fiber, Option, type Stream } from "effect"
import { retryLimit } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { DaemonStatus } from "../domain/DaemonStatus.js"
import { READY_TIMEOUT_STATUS, type StartOutcome } from "../domain/StartOutcome.js"
import {
  type ExitStatus,
  type ProcessHandle,
  type ProcessServiceShape,
  SpawnError,
} from "../process/ProcessService.js"
import { retryDelay } from "./backoff.js"
import type { DaemonState } from "./DaemonState.js"
import { daemonEnvironment, type RunAs, shellArgv } from "./environment.js"
import type { HookRun, HookVars } from "./hooks/fire.js"
import type { HookName } from "./hooks/HookRunner.js"
import { watchOutput } from "./hooks/onOutput.js"
import { portEnvironment, type ResolvedPorts } from "./ports/resolve.js"
import type { ReadyResult } from "./readiness/index.js"
import { toolManagerShell, usesToolManager } from "./toolManager.js"
import { resolveDaemonUser } from "./user.js"

/** What one daemon's lifecycle fiber needs from the supervisor around it. */
export interface LifecycleContext {
  readonly processes: ProcessServiceShape
  readonly shell: string
  /** `general.tool_manager` (the default of a daemon's `tool_manager`) and `general.tool_manager_bin`. */
  readonly toolManager: { readonly enabled: boolean; readonly bin: string }
  /** `settings.supervisor.user`: the default user daemons run as. */
  readonly settingsUser: string | undefined
  readonly baseEnv: Readonly<Record<string, string | undefined>>
  readonly stopTimeout: Duration.Duration
  /** Prepares the log files and starts following them; returns the raw output file. */
  readonly prepareLogs: (id: string) => Effect.Effect<string>
  /** The daemon's last output lines (after its output was indexed). */
  readonly lastLines: (id: string, n: number) => Effect.Effect<ReadonlyArray<string>>
  /** Replaces the runtime record of the daemon (and persists it). */
  readonly update: (id: string, f: (r: DaemonState) => DaemonState) => Effect.Effect<void>
  /**
   * Prepares the readiness checks of one run, right before its process is spawned (so that its
   * first output lines count): templates rendered, the log position noted. Fails with a message
   * when a check cannot be prepared (a template naming an unknown daemon or one without a port).
   * The returned effect waits for the first check to pass, the exit, or every check's timeout.
   */
  readonly prepareReadiness: (
    def: DaemonDefinition,
    run: ReadinessRun,
  ) => Effect.Effect<(handle: ProcessHandle) => Effect.Effect<ReadyResult>, string>
  /**
   * Picks the ports of a run (`port.expect`, shifted when taken and `port.bump` allows); fails
   * with a message naming the taken port, its holder and the fix. No `port`: none.
   */
  readonly resolvePorts: (def: DaemonDefinition) => Effect.Effect<ResolvedPorts, string>
  /** Fires one of the daemon's hooks in the background (nothing when it has none). */
  readonly fireHook: (
    def: DaemonDefinition,
    hook: HookName,
    run: HookRun,
    vars: HookVars,
  ) => Effect.Effect<void>
  /** The output lines of the daemon's current run, as they are indexed. */
  readonly outputLines: (id: string) => Stream.Stream<string>
  /** True once the supervisor is shutting down (its stops fire on_exit, not on_stop). */
  readonly shuttingDown: Effect.Effect<boolean>
  /**
   * True once the supervisor exits leaving its daemons running for the next one to adopt
   * (`supervisor supervisor start --force`): an interrupted lifecycle does not stop its process.
   */
  readonly detaching: Effect.Effect<boolean>
}

/** How the run being started is spawned (what `ready_cmd` inherits). */
export type ReadinessRun = RunAs

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
  /** Every readiness check timed out; the process group was stopped. */
  | { readonly _tag: "NotReady"; readonly message: string; readonly status: ExitStatus }

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
  // The run hooks inherit (environment and user): the latest spawn's, or the plain daemon's.
  // (Made on first use: most daemons fire no hook before their first spawn sets it.)
  let hookRun: HookRun | undefined
  let retryCount = 0
  // The ports of the latest spawn, for the start outcome.
  let runPorts: ResolvedPorts = { ports: [], offset: 0 }
  const fire = (hook: HookName, vars: Omit<HookVars, "retryCount"> = {}) => {
    hookRun ??= { env: daemonEnvironment(ctx.baseEnv, def, 0) }
    return ctx.fireHook(def, hook, hookRun, { retryCount, ...vars })
  }

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
      // At shutdown only on_exit fires: on_stop is for a stop somebody asked for.
      if (!(yield* ctx.shuttingDown)) yield* fire("on_stop", { exit: s, reason: "stop" })
      yield* fire("on_exit", { exit: s, reason: "stop" })
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
      const fail = (message: string) =>
        new SpawnError({ id, command: def.config.run, message: `cannot start daemon ${id}: ${message}` })
      if (user !== undefined && "error" in user) return yield* fail(user.error)
      runPorts = yield* ctx.resolvePorts(def).pipe(Effect.mapError(fail))
      const ports = runPorts.ports
      yield* ctx.update(id, (r) =>
        r.ports.length === ports.length && r.ports.every((p, i) => p === ports[i]) ? r : { ...r, ports },
      )
      const outputFile = yield* ctx.prepareLogs(id)
      const env = { ...daemonEnvironment(ctx.baseEnv, def, attempt), ...portEnvironment(runPorts.ports) }
      const identity = user !== undefined ? { uid: user.uid, gid: user.gid } : {}
      let shell: ReadonlyArray<string> = shellArgv(ctx.shell)
      if (usesToolManager(def.config.tool_manager, ctx.toolManager.enabled)) {
        const wrapped = toolManagerShell(ctx.toolManager.bin, shell, env, def.config.dir)
        if ("error" in wrapped) return yield* fail(wrapped.error)
        shell = wrapped.shell
      }
      hookRun = { env, ...identity }
      retryCount = attempt
      const waitReady = yield* ctx.prepareReadiness(def, { env, ...identity }).pipe(Effect.mapError(fail))
      const handle = yield* ctx.processes.spawn({
        id,
        command: def.config.run,
        shell,
        cwd: def.config.dir,
        env,
        outputFile,
        ...identity,
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
      return { handle, waitReady: Option.some(waitReady) }
    })

  // Every readiness check timed out: the normal stop path (signal, timeout, SIGKILL), then errored.
  const stopNotReady = (handle: ProcessHandle, message: string) =>
    Effect.gen(function* () {
      yield* ctx.update(id, (r) => ({ ...r, status: { type: "stopping" } }))
      const s = yield* ctx.processes.stop(handle, signal, timeout)
      yield* ctx.update(id, (r) => ({
        ...r,
        status: { type: "errored", exit_code: s.code, signal: s.signal, message },
        pid: null,
        startTime: null,
        handle: null,
      }))
      yield* fire("on_exit", { exit: s, reason: "fail" })
      return s
    })

  /** The run of one spawned (or adopted) process, until it exits, is not ready, or is interrupted. */
  const useRun = (
    handle: ProcessHandle,
    waitReady: Option.Option<(handle: ProcessHandle) => Effect.Effect<ReadyResult>>,
  ): Effect.Effect<RunResult> =>
    Effect.gen(function* () {
      yield* Deferred.succeed(spawned, undefined)
      const onOutput = def.config.hooks.on_output
      if (onOutput === undefined) return yield* watchRun(handle, waitReady)
      // the output hook lives as long as this run
      const watcher = yield* Effect.fork(
        watchOutput(onOutput, ctx.outputLines(id), (line) => fire("on_output", { matchedLine: line })),
      )
      return yield* watchRun(handle, waitReady).pipe(Effect.ensuring(Fiber.interrupt(watcher)))
    })

  const watchRun = (
    handle: ProcessHandle,
    waitReady: Option.Option<(handle: ProcessHandle) => Effect.Effect<ReadyResult>>,
  ): Effect.Effect<RunResult> =>
    Effect.gen(function* () {
      if (Option.isSome(waitReady)) {
        const r = yield* waitReady.value(handle)
        if (r._tag === "Exited") return { _tag: "Exited", status: r.status, beforeReady: true } as const
        if (r._tag === "TimedOut") {
          const status = yield* stopNotReady(handle, r.message)
          return { _tag: "NotReady", message: r.message, status } as const
        }
      }
      yield* ctx.update(id, (r) => ({ ...r, status: { type: "running" } }))
      if (Option.isSome(waitReady)) yield* fire("on_ready")
      yield* Deferred.succeed(ready, {
        _tag: "Ready",
        id,
        pid: handle.pid,
        ...(runPorts.ports.length > 0 ? { ports: runPorts.ports } : {}),
        ...(runPorts.offset > 0 ? { expected_ports: def.config.port?.expect ?? [] } : {}),
      })
      const status = yield* handle.exit
      return { _tag: "Exited", status, beforeReady: false } as const
    })

  // Not `Effect.scoped` with `acquireRelease`: providing a scope costs ~130 µs without TurboFan,
  // ten times this, on every start of every daemon.
  const runOnce = (attempt: number, existing: Option.Option<ProcessHandle>): Effect.Effect<RunResult> =>
    Effect.acquireUseRelease(
      Option.match(existing, {
        onNone: () => spawn(attempt),
        // adopted: it was ready under the previous supervisor
        onSome: (handle) => Effect.succeed({ handle, waitReady: Option.none() }),
      }).pipe(Effect.either),
      (acquired) =>
        acquired._tag === "Left"
          ? Effect.succeed<RunResult>({ _tag: "SpawnFailed", error: acquired.left })
          : useRun(acquired.right.handle, acquired.right.waitReady),
      (acquired, exit) =>
        acquired._tag === "Right" && Exit.isInterrupted(exit)
          ? Effect.flatMap(ctx.detaching, (detaching) =>
              detaching ? Effect.void : stopGroup(acquired.right.handle),
            )
          : Effect.void,
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
        yield* fire("on_fail")
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
      if (result._tag === "NotReady") {
        // Not retried: the checks had their whole timeout, and a retry would wait as long again.
        const output = yield* ctx.lastLines(id, 20)
        yield* fire("on_fail", { exit: result.status })
        yield* Deferred.succeed(ready, {
          _tag: "StartFailed",
          id,
          message: result.message,
          exit_code: result.status.code,
          signal: result.status.signal,
          output: [...output],
          cli_status: READY_TIMEOUT_STATUS,
        })
        return
      }
      const { status, beforeReady } = result
      const final = exitStatus(
        status,
        "exited; its exit status is unknown (it was adopted after a supervisor restart)",
      )
      yield* ctx.update(id, (r) => ({ ...r, status: final, pid: null, startTime: null, handle: null }))
      yield* fire("on_exit", { exit: status, reason: final.type === "stopped" ? "exit" : "fail" })
      if (final.type === "stopped") {
        if (beforeReady) yield* Deferred.succeed(ready, { _tag: "Completed", id })
        return
      }
      if (attempt < limit) {
        attempt++
        yield* Effect.sleep(retryDelay(attempt))
        retryCount = attempt
        yield* fire("on_retry", { exit: status })
        continue
      }
      const output = yield* ctx.lastLines(id, 20)
      yield* fire("on_fail", { exit: status })
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
