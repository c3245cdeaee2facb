import { type Duration, Effect, FiberSet } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { signalExitStatus } from "../../domain/Signal.js"
import type { ExitStatus } from "../../process/ProcessService.js"
import type { RunAs } from "../environment.js"
import type { HookName, HookRunnerShape } from "./HookRunner.js"

/** Why the daemon's process ended, as `SUPERVISOR_EXIT_REASON` says it (on_stop and on_exit). */
export type ExitReason = "stop" | "exit" | "fail"

/** How the daemon's current run was spawned: hooks inherit its environment and user. */
export type HookRun = RunAs

/** The hook's own variables, on top of the run's environment. */
export interface HookVars {
  readonly retryCount: number
  readonly exit?: ExitStatus
  readonly reason?: ExitReason
  readonly matchedLine?: string
  /** on_unhealthy: the output of the health check's last attempt. */
  readonly healthOutput?: string
}

/**
 * `SUPERVISOR_EXIT_CODE`: the exit code; for a process killed by a signal, 128 + the signal
 * number (what a shell reports); empty when unknown (an adopted process).
 */
export const exitCodeText = (s: ExitStatus): string => {
  if (s.code !== null) return String(s.code)
  const fromSignal = s.signal === null ? undefined : signalExitStatus(s.signal)
  return fromSignal === undefined ? "" : String(fromSignal)
}

/** The environment of a hook: the run's, then the hook variables. */
export const hookEnvironment = (run: HookRun, vars: HookVars): Record<string, string> => {
  const env: Record<string, string> = { ...run.env }
  env.SUPERVISOR_RETRY_COUNT = String(vars.retryCount)
  if (vars.exit !== undefined) env.SUPERVISOR_EXIT_CODE = exitCodeText(vars.exit)
  if (vars.reason !== undefined) env.SUPERVISOR_EXIT_REASON = vars.reason
  if (vars.matchedLine !== undefined) env.SUPERVISOR_MATCHED_LINE = vars.matchedLine
  if (vars.healthOutput !== undefined) env.SUPERVISOR_HEALTH_OUTPUT = vars.healthOutput
  return env
}

/** The command a daemon configures for a hook, if any. */
export const hookCommand = (def: DaemonDefinition, hook: HookName): string | undefined => {
  const hooks = def.config.hooks
  return hook === "on_output" ? hooks.on_output?.run : hooks[hook]
}

export interface HookFirerDeps {
  readonly runner: HookRunnerShape
  /** Where hook fibers run: they outlive the daemon's lifecycle fiber. */
  readonly fibers: FiberSet.FiberSet<unknown, never>
  readonly shell: ReadonlyArray<string>
  readonly timeout: Duration.Duration
}

/**
 * Fires a hook, fire-and-forget: the hook runs in its own fiber (in `fibers`) and the caller
 * goes on at once. A daemon without that hook fires nothing.
 */
export const makeHookFirer =
  ({ runner, fibers, shell, timeout }: HookFirerDeps) =>
  (def: DaemonDefinition, hook: HookName, run: HookRun, vars: HookVars): Effect.Effect<void> => {
    const command = hookCommand(def, hook)
    if (command === undefined) return Effect.void
    return FiberSet.run(
      fibers,
      runner.run({
        daemon: def.id.qualified,
        hook,
        run: command,
        shell,
        cwd: def.config.dir,
        ...run,
        env: hookEnvironment(run, vars),
        timeout,
      }),
    ).pipe(Effect.asVoid)
  }
