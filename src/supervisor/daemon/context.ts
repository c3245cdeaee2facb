import type { Duration, Effect, Stream } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { EventBody } from "../../domain/SupervisorEvent.js"
import type { TemplateError } from "../../domain/TemplateError.js"
import type { TemplateScope } from "../../domain/TemplateRender.js"
import type { ProcessHandle, ProcessServiceShape } from "../../process/ProcessService.js"
import type { EnvironmentLayers, RenderedCommand } from "../commandTemplates.js"
import type { DaemonState } from "../DaemonState.js"
import type { RunAs } from "../environment.js"
import type { PreparedHealth } from "../health/prepare.js"
import type { HookRun, HookVars } from "../hooks/fire.js"
import type { HookName } from "../hooks/HookRunner.js"
import type { PortConflict, ResolvedPorts } from "../ports/resolve.js"
import type { ReadyResult } from "../readiness/index.js"

/** What one daemon's lifecycle needs from the supervisor around it. */
export interface DaemonContext {
  readonly processes: ProcessServiceShape
  readonly shell: string
  /** `general.tool_manager` (the default of a daemon's `tool_manager`) and `general.tool_manager_bin`. */
  readonly toolManager: { readonly enabled: boolean; readonly bin: string }
  /** `settings.supervisor.user`: the default user daemons run as. */
  readonly settingsUser: string | undefined
  readonly baseEnv: Readonly<Record<string, string | undefined>>
  readonly stopTimeout: Duration.Duration
  /** `settings.supervisor.restart_delay`: the pause between a restart's stop and its start. */
  readonly restartDelay: Duration.Duration
  /** The daemon's record in the registry (undefined once forgotten). */
  readonly current: (id: string) => Effect.Effect<DaemonState | undefined>
  /**
   * Replaces the daemon's record (and persists it); `f` returning its argument changes nothing.
   * A new status is published (`DaemonStateChanged`) with the cause the lifecycle last set.
   */
  readonly update: (id: string, f: (r: DaemonState) => DaemonState) => Effect.Effect<void>
  /** Records the definition of a daemon that is about to start (a new record if it had none). */
  readonly register: (def: DaemonDefinition) => Effect.Effect<void>
  /** Removes the daemon from the registry, the state file and the logs (`clean`). */
  readonly forget: (id: string) => Effect.Effect<void>
  readonly isDisabled: (id: string) => Effect.Effect<boolean>
  /** Prepares the log files and starts following them; returns the raw output file. */
  readonly prepareLogs: (id: string) => Effect.Effect<string>
  /** After a run ended for good: its log indexed to the end and its files closed (until a start). */
  readonly releaseLogs: (id: string) => Effect.Effect<void>
  /**
   * Writes a line of the supervisor's own into the daemon's log, `[supervisor] <text>`: an exit
   * nobody asked for, a restart and its reason (docs/logs.md). A write that fails is logged.
   */
  readonly note: (id: string, text: string) => Effect.Effect<void>
  /** The daemon's last output lines of its current run (after its output was indexed). */
  readonly lastLines: (id: string, n: number) => Effect.Effect<ReadonlyArray<string>>
  /**
   * What templates render for the daemon now (its record's ports, the daemons the supervisor
   * knows, the settings), with `env` as what `{{ env.VAR }}` reads: readiness, health checks and
   * hooks render their values with it (docs/templates.md).
   */
  readonly templateScope: (
    def: DaemonDefinition,
    env: Readonly<Record<string, string | undefined>>,
  ) => Effect.Effect<TemplateScope>
  /** The daemon's `run`, `env` and environment with their templates rendered, or why they cannot be. */
  readonly renderCommand: (
    def: DaemonDefinition,
    layers: EnvironmentLayers,
  ) => Effect.Effect<RenderedCommand, TemplateError>
  /**
   * The variables of the daemon's env files (read now) and the top-level `[env]` (rendered), the
   * layers its own `env` goes over; or why a file cannot be read or a template rendered.
   */
  readonly lowerEnv: (def: DaemonDefinition) => Effect.Effect<Record<string, string>, string>
  /**
   * Prepares the readiness checks of one run, right before its process is spawned (so that its
   * first output lines count). Fails when a check's template cannot be rendered. The
   * returned effect waits for the first check to pass, the exit, or every check's timeout.
   */
  readonly prepareReadiness: (
    def: DaemonDefinition,
    run: RunAs,
  ) => Effect.Effect<(handle: ProcessHandle) => Effect.Effect<ReadyResult>, TemplateError>
  /**
   * Prepares the health check of one run (its templates rendered as readiness checks are), or
   * undefined when the daemon has none. Fails when a template cannot be rendered.
   */
  readonly prepareHealth: (
    def: DaemonDefinition,
    run: RunAs,
  ) => Effect.Effect<PreparedHealth | undefined, TemplateError>
  /** Picks the ports of a run; fails naming the taken port and its holder (its message says the fix). */
  readonly resolvePorts: (def: DaemonDefinition) => Effect.Effect<ResolvedPorts, PortConflict>
  /** Fires one of the daemon's hooks in the background (nothing when it has none). */
  readonly fireHook: (
    def: DaemonDefinition,
    hook: HookName,
    run: HookRun,
    vars: HookVars,
  ) => Effect.Effect<void>
  /** The output lines of the daemon's current run, as they are indexed. */
  readonly outputLines: (id: string) => Stream.Stream<string>
  /** Why the daemon's next changes happen (`cli`, `exited`, `retry`, ...): set per command handled. */
  readonly setCause: (id: string, cause: string) => void
  /** Publishes an event on the supervisor's event log (docs/events.md). */
  readonly publish: (event: EventBody) => Effect.Effect<void>
  /** True once the supervisor shuts down: starts are refused. */
  readonly shuttingDown: Effect.Effect<boolean>
  /**
   * True once the supervisor exits leaving its daemons running for the next one to adopt: an
   * interrupted lifecycle does not stop its process.
   */
  readonly detaching: Effect.Effect<boolean>
}
