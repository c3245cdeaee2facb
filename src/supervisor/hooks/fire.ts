import { type Duration, Effect, Either, FiberSet } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { signalExitStatus } from "../../domain/Signal.js"
import { renderTemplateValue, type TemplateScope } from "../../domain/TemplateRender.js"
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
  /** What the hook's templates render, `{{ env.VAR }}` read from the hook's environment. */
  readonly templateScope: (
    def: DaemonDefinition,
    env: Readonly<Record<string, string | undefined>>,
  ) => Effect.Effect<TemplateScope>
  /** A line of the supervisor's own log: a hook whose template cannot be rendered is not run. */
  readonly log?: (line: string) => Effect.Effect<void>
}

/**
 * Fires a hook, fire-and-forget: its templates are rendered and it runs in its own fiber (in
 * `fibers`) while the caller goes on at once. A daemon without that hook fires nothing; a hook
 * whose template cannot be rendered is not run, and the supervisor log says why.
 */
export const makeHookFirer =
  ({ runner, fibers, shell, timeout, templateScope, log = Effect.logWarning }: HookFirerDeps) =>
  (def: DaemonDefinition, hook: HookName, run: HookRun, vars: HookVars): Effect.Effect<void> => {
    const command = hookCommand(def, hook)
    if (command === undefined) return Effect.void
    const env = hookEnvironment(run, vars)
    return FiberSet.run(
      fibers,
      Effect.gen(function* () {
        const scope = yield* templateScope(def, env)
        const rendered = renderTemplateValue(`hooks.${hook}`, command, scope, "shell")
        if (Either.isLeft(rendered))
          return yield* log(`[hook ${def.id.qualified} ${hook}] not run: ${rendered.left.message}`)
        yield* runner.run({
          daemon: def.id.qualified,
          hook,
          run: rendered.right,
          shell,
          cwd: def.config.dir,
          ...run,
          env,
          timeout,
        })
      }),
    ).pipe(Effect.asVoid)
  }
