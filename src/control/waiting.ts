// What a start waits for, in words (`api waiting for port 3000`): the progress of `supervisor
// start`, printed by the CLI (progress.ts) or, for the quick client, computed by the supervisor.
import { Either } from "effect"
import { configDefinitions } from "../config/definitions.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { isActive } from "../domain/DaemonStatus.js"
import { conditionOf, dependenciesText } from "../domain/Dependency.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { Waiting } from "../domain/StartEvent.js"
import { describeChecks, readinessChecks } from "../supervisor/readiness/plan.js"
import { renderChecks } from "../supervisor/readiness/template.js"

/**
 * What a daemon's start waits on, in words, its templates rendered with `portOf` (the first
 * port of a daemon, undefined for an unknown one): `port 3001`, `http://127.0.0.1:3001/health`.
 */
export const describeWaiting = (
  def: DaemonDefinition,
  portOf: (id: string) => { readonly port: number | undefined } | undefined,
): string => {
  const checks = readinessChecks(def.config)
  const rendered = renderChecks(checks, def.id.namespace, portOf)
  return describeChecks(Either.getOrElse(rendered, () => checks))
}

/** What a start waits on, in words; templates rendered with the ports the CLI can see. */
const waitingFor = (def: DaemonDefinition, config: ResolvedConfig, known: ReadonlyArray<ApiDaemonEntry>) => {
  const defs = configDefinitions(config)
  return describeWaiting(def, (id) => {
    if (id === def.id.qualified) return { port: def.config.port?.expect[0] }
    const d = defs.get(id)
    if (d) return { port: d.config.port?.expect[0] }
    const k = known.find((e) => e.id.qualified === id)
    return k ? { port: k.resolved_port[0] } : undefined
  })
}

/**
 * The daemons a start will wait for: the dependencies that do not run yet, then the requested
 * daemons that do not run yet (all of them with `force`), but for disabled ones (refused). A
 * daemon that waits for dependencies first says so (`app/migrate to complete`).
 */
export const waitingList = (
  defs: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
  disabledIds: ReadonlyArray<string>,
): ReadonlyArray<Waiting> => {
  const running = (d: DaemonDefinition) => known.some((k) => k.id.qualified === d.id.qualified && isActive(k))
  // a disabled daemon is refused, not waited for
  const disabled = (d: DaemonDefinition) => disabledIds.includes(d.id.qualified)
  const planned = new Set([...dependencies, ...defs].map((d) => d.id.qualified))
  const isRunning = (id: string) => known.some((k) => k.id.qualified === id && isActive(k))
  return [...dependencies.filter((d) => !running(d)), ...defs.filter((d) => force || !running(d))]
    .filter((d) => !disabled(d))
    .map((d) => {
      // first it waits for its dependencies (a running one only until it completes)
      const pending = d.config.depends
        .map((id) => ({ id, condition: conditionOf(d.config, id) }))
        .filter((p) => planned.has(p.id) && (p.condition === "completed" || !isRunning(p.id)))
      return pending.length > 0
        ? { id: d.id.qualified, what: dependenciesText(pending), dependencies: pending }
        : { id: d.id.qualified, what: waitingFor(d, config, known) }
    })
}
