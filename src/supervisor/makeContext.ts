import { FileSystem } from "@effect/platform"
import { Effect, type FiberSet, type Ref, Stream } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { EventLog } from "../events/EventLog.js"
import { LogStore } from "../logs/LogStore.js"
import { isSupervisorLine } from "../logs/supervisorLine.js"
import { ProcessService } from "../process/ProcessService.js"
import { StateStore } from "../state/StateStore.js"
import { renderCommand } from "./commandTemplates.js"
import type { DaemonState } from "./DaemonState.js"
import type { DaemonContext } from "./daemon/context.js"
import { shellArgv } from "./environment.js"
import { layeredEnv, renderSharedEnv } from "./envLayers.js"
import { makeHealthChecks } from "./health/checks.js"
import { prepareHealth } from "./health/prepare.js"
import { makeHookFirer } from "./hooks/fire.js"
import { HookRunner } from "./hooks/HookRunner.js"
import { followOptionsOf } from "./logPolicy.js"
import { PortAvailability } from "./ports/availability.js"
import { makePortClaims } from "./ports/claims.js"
import { resolvePorts } from "./ports/resolve.js"
import { ReadinessProbes } from "./readiness/index.js"
import { indexedAll, indexedUpTo, prepareReadiness } from "./readinessContext.js"
import type { Registry } from "./registry.js"
import { makeTemplateScope } from "./templateScope.js"

export interface ContextDeps {
  readonly registry: Registry
  /** Where hook fibers run: they outlive a daemon's run. */
  readonly hookFibers: FiberSet.FiberSet<unknown, never>
  readonly shuttingDown: Ref.Ref<boolean>
  readonly detaching: Ref.Ref<boolean>
}

/** What every daemon's lifecycle gets from the supervisor's services (see `DaemonContext`). */
export const makeDaemonContext = ({ registry, hookFibers, shuttingDown, detaching }: ContextDeps) =>
  Effect.gen(function* () {
    const processes = yield* ProcessService
    const logs = yield* LogStore
    const state = yield* StateStore
    const config = yield* SupervisorConfig
    const probes = yield* ReadinessProbes
    const hookRunner = yield* HookRunner
    const ports = yield* PortAvailability
    const events = yield* EventLog
    const templateScope = yield* makeTemplateScope(registry.all)
    const claimPorts = yield* makePortClaims(registry.all, ports.check)
    const healthChecks = yield* makeHealthChecks
    const fs = yield* FileSystem.FileSystem
    // Why each daemon's state changes now: set by its lifecycle for each command it handles.
    const causes = new Map<string, string>()
    /** `registry.update`, publishing a change of status. */
    const update = (id: string, f: (r: DaemonState) => DaemonState) =>
      Effect.suspend(() => {
        let change: { readonly from: DaemonState; readonly to: DaemonState } | undefined
        return registry
          .update(id, (r) => {
            const to = f(r)
            if (to.status.type !== r.status.type) change = { from: r, to }
            return to
          })
          .pipe(
            Effect.zipRight(
              Effect.suspend(() =>
                change === undefined
                  ? Effect.void
                  : events.publish({
                      _tag: "DaemonStateChanged",
                      id,
                      from: change.from.status.type,
                      to: change.to.status.type,
                      reason: causes.get(id) ?? "api",
                      pid: change.to.pid ?? change.from.pid,
                      exit_code: change.to.status.exit_code ?? null,
                      signal: change.to.status.signal ?? null,
                      message: change.to.status.message ?? null,
                    }),
              ),
            ),
          )
      })
    // The last log entry before each daemon's current run: its failure shows this run's lines only.
    const runStart = new Map<string, number>()

    const ctx: DaemonContext = {
      processes,
      shell: config.settings.general.shell,
      toolManager: {
        enabled: config.settings.general.tool_manager,
        bin: config.settings.general.tool_manager_bin,
      },
      settingsUser: config.settings.supervisor.user,
      baseEnv: config.env,
      stopTimeout: config.settings.supervisor.stop_timeout,
      restartDelay: config.settings.supervisor.restart_delay,
      current: registry.current,
      update,
      setCause: (id, cause) => {
        causes.set(id, cause)
      },
      publish: events.publish,
      register: registry.register,
      forget: (id) =>
        Effect.gen(function* () {
          yield* registry.remove(id)
          yield* state.update((s) => {
            const daemons = { ...s.daemons }
            delete daemons[id]
            return { ...s, daemons }
          })
          runStart.delete(id)
          causes.delete(id)
          yield* logs.forget(id).pipe(Effect.ignore)
        }),
      isDisabled: (id) => state.get.pipe(Effect.map((s) => s.disabled.includes(id))),
      prepareLogs: (id) =>
        Effect.gen(function* () {
          // Following first: `prepare` then marks the new run's first byte in the follower and
          // says how far the index is (no index file read of its own).
          const def = (yield* registry.current(id))?.def
          yield* logs.follow(id, def === undefined ? {} : followOptionsOf(def.config, config.settings))
          const { rawPath, size, indexed } = yield* logs.prepare(id)
          // Output written while the supervisor was down is indexed only now, by the follower:
          // this run's lines start after it.
          let stats = indexed ?? (yield* logs.stats(id))
          if (stats.endOffset < size) {
            yield* indexedUpTo(logs, id, size)
            stats = yield* logs.stats(id)
          }
          runStart.set(id, stats.lastId)
          return rawPath
        }).pipe(Effect.orDie),
      releaseLogs: (id) =>
        logs
          .retire(id)
          .pipe(
            Effect.catchAll((e) => Effect.logWarning(`cannot release the log files of ${id}: ${e.message}`)),
          ),
      note: (id, text) =>
        logs
          .note(id, text)
          .pipe(Effect.catchAll((e) => Effect.logWarning(`cannot write to the log of ${id}: ${e.message}`))),
      // The daemon's own lines: the supervisor's lines (a run has one or two: its exit, a stop)
      // are not its output, so a few more are read to leave them out.
      lastLines: (id, n) =>
        indexedAll(logs, id).pipe(
          Effect.zipRight(logs.query(id, { lines: n + 4 })),
          Effect.map((es) =>
            es
              .filter((e) => e.id > (runStart.get(id) ?? 0) && !isSupervisorLine(e.message))
              .slice(-n)
              .map((e) => e.message),
          ),
          Effect.orElseSucceed(() => []),
        ),
      templateScope,
      renderCommand: (def, layers) =>
        Effect.flatMap(templateScope(def, layers.below), (scope) => renderCommand(def.config, scope, layers)),
      prepareReadiness: prepareReadiness({
        logs,
        config,
        probes,
        processes,
        known: registry.all,
        templateScope,
      }),
      prepareHealth: prepareHealth({
        config,
        probes,
        processes,
        known: registry.all,
        templateScope,
        checks: healthChecks,
      }),
      lowerEnv: (def) =>
        layeredEnv(config.env, def.config, (below) =>
          Effect.flatMap(templateScope(def, below), (scope) => renderSharedEnv(def.config, scope)),
        ).pipe(Effect.provideService(FileSystem.FileSystem, fs)),
      resolvePorts: (def) => {
        const spec = def.config.port
        if (spec === undefined || spec.expect.length === 0) return Effect.succeed({ ports: [], offset: 0 })
        return claimPorts(def.id.qualified, (check) =>
          resolvePorts(spec.expect, spec.bump, check, ports.holder),
        )
      },
      fireHook: makeHookFirer({
        runner: hookRunner,
        fibers: hookFibers,
        shell: shellArgv(config.settings.general.shell),
        timeout: config.settings.supervisor.hook_timeout,
        templateScope,
      }),
      outputLines: (id) => {
        const afterId = runStart.get(id)
        return logs.onLines(id, afterId === undefined ? {} : { afterId }).pipe(
          Stream.map((e) => e.message),
          Stream.filter((line) => !isSupervisorLine(line)),
          Stream.catchAll(() => Stream.empty),
        )
      },
      shuttingDown: shuttingDown.get,
      detaching: detaching.get,
    }
    return ctx
  })
