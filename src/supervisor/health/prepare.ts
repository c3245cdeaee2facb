import { Effect, Either, type Scope } from "effect"
import type { SupervisorConfigShape } from "../../config/SupervisorConfig.js"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import type { TemplateError } from "../../domain/TemplateError.js"
import type { ProcessHandle, ProcessServiceShape } from "../../process/ProcessService.js"
import type { DaemonState } from "../DaemonState.js"
import { type RunAs, shellArgv } from "../environment.js"
import type { ReadinessProbesShape } from "../readiness/index.js"
import { renderCheck } from "../readiness/template.js"
import { pidsOfOwner, type ReadinessDeps } from "../readinessContext.js"
import { healthAttempt } from "./attempt.js"
import type { HealthChecks, HealthReport } from "./checks.js"
import { type HealthSpec, healthKey, healthSpec } from "./spec.js"

/** What preparing a run's health check needs from the supervisor. */
export interface HealthDeps {
  readonly config: SupervisorConfigShape
  readonly probes: ReadinessProbesShape
  readonly processes: Pick<ProcessServiceShape, "tree" | "groupMembers">
  /** The daemons the supervisor knows: templates name their ports. */
  readonly known: Effect.Effect<ReadonlyMap<string, DaemonState>>
  /** What the check's templates render (see `DaemonContext.templateScope`). */
  readonly templateScope: ReadinessDeps["templateScope"]
  /** Where the checks run. */
  readonly checks: HealthChecks
}

/** A run's health check, rendered: its spec, and its checking of the run's process. */
export interface PreparedHealth {
  readonly spec: HealthSpec
  /** Checks the run's process until the scope closes, telling `report` when its health changes. */
  readonly watch: (handle: ProcessHandle, report: HealthReport) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * The daemon's health check with its templates rendered the way readiness checks are (with the
 * ports of the daemons the supervisor knows), or undefined when it has none. Fails when a
 * template cannot be rendered.
 */
export const prepareHealth =
  ({ config, probes, processes, known: knownNow, templateScope, checks }: HealthDeps) =>
  (def: DaemonDefinition, run: RunAs): Effect.Effect<PreparedHealth | undefined, TemplateError> =>
    Effect.gen(function* () {
      const configured = healthSpec(def.config)
      if (configured === undefined) return undefined
      const id = def.id.qualified
      const scope = yield* templateScope(def, run.env)
      const rendered = renderCheck(configured.check, scope, healthKey(configured))
      if (Either.isLeft(rendered)) return yield* rendered.left
      const spec = { ...configured, check: rendered.right as HealthSpec["check"] }
      const command = { shell: shellArgv(config.settings.general.shell), cwd: def.config.dir, ...run }
      const check = spec.check
      // an http check of the real probes runs without a fiber: it is the same every attempt
      const direct =
        check._tag === "http" && probes.startHttp !== undefined
          ? probes.startHttp(check.url, check.status, spec.timeout)
          : undefined
      return {
        spec,
        watch: (handle, report) =>
          checks.watch(
            spec,
            direct ??
              healthAttempt(id, spec, {
                probes,
                command,
                treeOf: pidsOfOwner(processes, knownNow, id, handle.pid),
              }),
            report,
          ),
      }
    })
