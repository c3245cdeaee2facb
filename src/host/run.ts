import * as fs from "node:fs"
import { Console, Context, Deferred, Effect, FiberRef, HashSet, Layer, Logger, Option, Ref } from "effect"
import { CascadeLive } from "../automation/cascade/Cascade.js"
import { CronLive } from "../automation/cron/Cron.js"
import { UsageHistoryLive } from "../automation/history/UsageHistory.js"
import { LimitsLive } from "../automation/limits/Limits.js"
import { PresenceLive } from "../automation/presence/live.js"
import { WatchLive } from "../automation/watch/Watch.js"
import { ConfigLoader, ConfigLoaderLive } from "../config/ConfigLoader.js"
import { candidateLocations } from "../config/discover.js"
import { loadConfig } from "../config/Loader.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { Control, ControlLive } from "../control/Control.js"
import { HostInfo, type ListenerUrls, type ShutdownMode } from "../domain/HostInfo.js"
import { VERSION } from "../domain/version.js"
import { EventLog, EventLogLive } from "../events/EventLog.js"
import { LogStore } from "../logs/LogStore.js"
import { MetricsLive } from "../metrics/Metrics.js"
import { ProcessServiceLive } from "../process/NodeProcessService.js"
import { ProcessSamplerLive } from "../process/ProcessSampler.js"
import { ProcessService } from "../process/ProcessService.js"
import { SpawnHelpersLive } from "../process/spawnHelper.js"
import { LiveSettingsLive } from "../registry/liveSettings.js"
import { ProjectRegistry, ProjectRegistryLive } from "../registry/ProjectRegistry.js"
import { tightenStateModes } from "../state/modes.js"
import { statePaths } from "../state/paths.js"
import { StateStore, StateStoreLive } from "../state/StateStore.js"
import { StorageHealthLive } from "../state/StorageHealth.js"
import { loadOrCreateToken } from "../state/token.js"
import { inheritableEnv } from "../supervisor/environment.js"
import { HookRunner, HookRunnerLive } from "../supervisor/hooks/HookRunner.js"
import { PortAvailabilityLive } from "../supervisor/ports/availability.js"
import { ReadinessProbesLive } from "../supervisor/readiness/index.js"
import { SupervisorLive } from "../supervisor/Supervisor.js"
import { startAtBoot } from "./bootStart.js"
import { watchFailures } from "./container/exitPolicy.js"
import { type ContainerFlags, type ContainerMode, containerMode } from "./container/mode.js"
import { ContainerOutput, containerOutputLayers } from "./container/output.js"
import { listenerPlans, tcpListeners } from "./listeners.js"
import { acquireSupervisorLock } from "./lock.js"
import { hostLogLevel, setHostLogLevel } from "./logLevel.js"
import { type OutputGuard, outputGuardsLayer } from "./logSink.js"
import { ProxyListenerLive } from "./proxyListener.js"
import { socketServer } from "./server.js"
import { makeSessions } from "./sessions.js"
import { StorageEventsLive } from "./storageEvents.js"
import { makeTrace, traceEnabled } from "./trace.js"

/** Whether `dir` or a directory above it has a project configuration file. */
const hasProjectConfig = (dir: string) =>
  candidateLocations({ cwd: dir, home: "/", env: {} }).some(
    (l) => l.level === "project" && fs.existsSync(l.path),
  )

export interface HostOptions {
  readonly stateDir: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--boot`: start the `boot_start` daemons once, in the background (src/host/bootStart.ts). */
  readonly boot?: boolean
  /** The guards of the process's own output (logSink.ts): they count failures with the StorageHealth. */
  readonly outputGuards?: ReadonlyArray<OutputGuard | undefined>
  /** `--container`, `--log-format`, `--exit-on-failure` (container mode: src/host/container/). */
  readonly container?: ContainerFlags
  /** Where container mode prints the daemons' lines (default: the process's stdout). */
  readonly writeOutput?: (text: string) => void
}

/** In container mode the supervisor's own log lines go to stderr: stdout is the daemons'. */
const logToStderr = Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
  loggers.pipe(
    HashSet.remove(Logger.defaultLogger),
    HashSet.remove(Logger.prettyLoggerDefault),
    HashSet.add(Logger.prettyLogger({ stderr: true })),
  ),
)

/**
 * The supervisor process: holds the lock, serves the API on the state dir's
 * socket, adopts what a previous supervisor left running, and runs until asked
 * to stop (API) or interrupted (SIGTERM/SIGINT); then it stops every daemon. It succeeds with the
 * exit status: 1 when container mode's `--exit-on-failure` stopped it, else 0.
 */
export const runHost = (options: HostOptions) =>
  Effect.scoped(
    Effect.gen(function* () {
      const paths = statePaths(options.stateDir)
      fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 })
      yield* acquireSupervisorLock(paths.dir)
      tightenStateModes(paths)
      // Global settings only: project files are read by the CLI in each project.
      const config = yield* loadConfig({ cwd: "/", env: options.env })
      const container = containerMode(
        options.container ?? { container: false, exitOnFailure: false },
        config.settings.supervisor.container,
        process.pid,
      )
      if (container instanceof Error) return yield* container
      if (container !== undefined) yield* logToStderr
      const toFile = container === undefined && (options.outputGuards ?? []).some((g) => g !== undefined)
      yield* setHostLogLevel(hostLogLevel(config.settings, toFile))
      const plans = yield* listenerPlans(config.settings, options.env)
      const token = plans.length > 0 ? loadOrCreateToken(paths.dir, config.settings.api.token) : ""
      const shutdown = yield* Deferred.make<ShutdownMode>()
      const startedAt = Date.now()
      const host = Layer.succeed(HostInfo, {
        version: VERSION,
        startedAt,
        stateDir: paths.dir,
        socket: paths.socket,
        listeners: yield* Ref.make<ListenerUrls>({ web: null, api: null }),
        sessions: makeSessions(),
        shutdown,
      })
      // SUPERVISOR_TRACE=1: the services of a start timed (src/host/trace.ts); else the same layers
      const trace = makeTrace(traceEnabled(options.env))
      const control = ControlLive.pipe(trace.service(Control, "Control"))
      const services = Layer.mergeAll(
        control,
        WatchLive({ stateDir: paths.dir }).pipe(Layer.provide(control)),
        CronLive.pipe(Layer.provide(control)),
        CascadeLive.pipe(Layer.provide(control)),
        LimitsLive.pipe(Layer.provide(Layer.merge(LiveSettingsLive, control))),
        PresenceLive.pipe(Layer.provide(control)),
        UsageHistoryLive,
        StorageEventsLive,
        outputGuardsLayer(options.outputGuards ?? []),
      ).pipe(
        // one sampler for list, the API, the proxy, the limits, the history and the metrics
        Layer.provideMerge(ProcessSamplerLive),
        Layer.provideMerge(Layer.merge(SupervisorLive, ProjectRegistryLive)),
        Layer.provideMerge(ConfigLoaderLive.pipe(trace.service(ConfigLoader, "ConfigLoader"))),
        Layer.provideMerge(StateStoreLive(paths.stateFile).pipe(trace.service(StateStore, "StateStore"))),
        Layer.provideMerge(
          EventLogLive({ retain: config.settings.supervisor.events_retained }).pipe(
            trace.service(EventLog, "EventLog"),
          ),
        ),
        Layer.provideMerge(logStoreLayers(paths.logsDir, trace, container, options.writeOutput)),
        Layer.provideMerge(StorageHealthLive),
        Layer.provide(
          Layer.mergeAll(
            ReadinessProbesLive,
            HookRunnerLive.pipe(trace.service(HookRunner, "HookRunner")),
            PortAvailabilityLive,
          ).pipe(
            Layer.provideMerge(
              ProcessServiceLive.pipe(
                Layer.provide(
                  SpawnHelpersLive(options.env, { subreaper: container !== undefined, shortSlice: true }),
                ),
                trace.service(ProcessService, "ProcessService"),
              ),
            ),
          ),
        ),
        Layer.provideMerge(
          Layer.succeed(SupervisorConfig, {
            settings: config.settings,
            // a plain copy (every spawn copies it, and process.env is slow to enumerate),
            // without the API token: no daemon or hook may see it
            env: inheritableEnv(options.env),
            slugs: config.slugs,
          }),
        ),
      )
      const context = yield* Layer.build(
        Layer.mergeAll(
          socketServer(paths.socket, trace.server),
          tcpListeners(plans, token, {
            metricsPublic: config.settings.metrics.public,
            logLines: config.settings.web.log_lines,
          }),
        ).pipe(
          // the proxy listens (or has said why not) before the socket answers: a `supervisor
          // start` that returns has its proxy up
          Layer.provideMerge(ProxyListenerLive.pipe(Layer.provide(LiveSettingsLive))),
          Layer.provideMerge(MetricsLive),
          Layer.provideMerge(services),
          Layer.provide(host),
        ),
      )
      // Runs before the server closes: ends open log tails so that shutdown does not wait on them.
      yield* Effect.addFinalizer(() => Deferred.succeed(shutdown, "stop"))
      const state = yield* Effect.provide(StateStore, context)
      const commands = yield* Effect.provide(Control, context)
      // Started by hand in a project (`supervisor supervisor run`): its daemons are known at once.
      const cwd = process.cwd()
      if (cwd !== "/" && hasProjectConfig(cwd))
        yield* Effect.provide(ProjectRegistry, context).pipe(Effect.flatMap((p) => p.note(cwd)))
      for (const warning of state.warnings) yield* Effect.logWarning(warning)
      yield* Console.error(`supervisor ${VERSION} (pid ${process.pid}) listening on ${paths.socket}`)
      const exitStatus = yield* Ref.make(0)
      if (container !== undefined) {
        yield* Console.error(
          `container mode (${container.why}): daemons' output on stdout${container.logFormat === "json" ? " as JSON lines" : ""}; orphans reaped; SIGTERM stops every daemon in order${container.exitOnFailure ? "; a daemon failing for good stops everything (--exit-on-failure)" : ""}`,
        )
        // what runs already (adopted from a previous supervisor) is printed from now on
        const output = Context.getOption(context, ContainerOutput)
        for (const [id, record] of Object.entries((yield* state.get).daemons))
          if (record.pid !== null && Option.isSome(output)) yield* output.value.watch(id)
        if (container.exitOnFailure)
          yield* watchFailures(yield* Effect.provide(EventLog, context), (id, message) =>
            Console.error(`supervisor stopping: ${id} failed for good (${message}); --exit-on-failure`).pipe(
              Effect.zipRight(Ref.set(exitStatus, 1)),
              Effect.zipRight(Deferred.succeed(shutdown, "stop")),
            ),
          )
      }
      // the API answers while they start; shutdown interrupts what is left of it
      if (options.boot === true) yield* Effect.forkScoped(Effect.provide(startAtBoot(config), context))
      const mode = yield* Deferred.await(shutdown)
      if (mode === "keep") {
        // `supervisor supervisor start --force`: the next supervisor adopts what runs.
        const running = yield* commands.shutdown("keep")
        yield* Console.error(
          `supervisor stopping: leaving ${running} daemon(s) running for the next supervisor`,
        )
        return yield* Ref.get(exitStatus)
      }
      // Asked over the API: stop the daemons while the socket still answers, so that
      // `supervisor supervisor stop` returns only once they are gone.
      yield* Console.error("supervisor stopping: stopping every daemon")
      yield* commands.shutdown("stop")
      return yield* Ref.get(exitStatus)
    }),
  )

/** The log store, and in container mode the printer of the daemons' lines over it. */
const logStoreLayers = (
  dir: string,
  trace: ReturnType<typeof makeTrace>,
  container: ContainerMode | undefined,
  write: ((text: string) => void) | undefined,
) => {
  const store = LogStore.layer({ dir }).pipe(trace.service(LogStore, "LogStore"))
  if (container === undefined) return store
  return containerOutputLayers(store, container.logFormat, write ?? stdoutWriter())
}

/**
 * Writes to the process's stdout (synchronous for files and pipes on Linux). A stdout whose
 * reader is gone (EPIPE) must not end the supervisor, PID 1: the lines are dropped from then on,
 * and stay in the daemons' logs.
 */
const stdoutWriter = () => {
  let broken = false
  process.stdout.on("error", () => {
    broken = true
  })
  return (text: string) => {
    if (!broken) process.stdout.write(text)
  }
}
