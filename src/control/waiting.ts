// What a start waits for, in words (`api waiting for port 3000`): the progress of `supervisor
// start`, printed by the CLI (progress.ts) or, for the quick client, computed by the supervisor.
import { Either } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { isActive } from "../domain/DaemonStatus.js"
import { awaitsExit, conditionOf, dependenciesText } from "../domain/Dependency.js"
import type { Waiting } from "../domain/StartEvent.js"
import { ownScope } from "../domain/TemplateRender.js"
import { describeChecks, readinessChecks } from "../supervisor/readiness/plan.js"
import { renderCheck, type TemplateScope } from "../supervisor/readiness/template.js"
import { startSet } from "./startSet.js"

/**
 * What a daemon's start waits on, in words, its templates rendered with `portOf` (the first
 * port of a daemon, undefined for an unknown one): `port 3001`, `http://127.0.0.1:3001/health`.
 * A check whose templates name more than ports is described as written.
 */
export const describeWaiting = (
  def: DaemonDefinition,
  portOf: (id: string) => { readonly port: number | undefined } | undefined,
): string => {
  const portsOf = (id: string) => {
    const port = portOf(id)?.port
    return port === undefined ? [] : [port]
  }
  // what is known here: ports; a check naming anything else is described as written
  const scope: TemplateScope = {
    daemon: ownScope(def, portsOf(def.id.qualified)),
    daemons: (id) => (portOf(id) === undefined ? undefined : { ports: portsOf(id), proxyUrl: null }),
    settings: undefined,
    env: {},
  }
  return describeChecks(
    readinessChecks(def.config).map((c) => Either.getOrElse(renderCheck(c, scope), () => c)),
  )
}

/** What a start waits on, in words; templates rendered with the ports the CLI can see. */
const waitingFor = (
  def: DaemonDefinition,
  defs: ReadonlyMap<string, DaemonDefinition>,
  known: ReadonlyArray<ApiDaemonEntry>,
) => {
  return describeWaiting(def, (id) => {
    if (id === def.id.qualified) return { port: def.config.port?.expect[0] }
    const d = defs.get(id)
    if (d) return { port: d.config.port?.expect[0] }
    const k = known.find((e) => e.id.qualified === id)
    return k ? { port: k.resolved_port[0] } : undefined
  })
}

/**
 * Whether a listed daemon's last run exited 0 and it does not run: how the CLI, which sees no
 * more than the listing, judges `completed_once` (the supervisor knows whether it ran under it).
 */
export const exitedZero = (known: ReadonlyArray<ApiDaemonEntry>) => (id: string) =>
  known.some((k) => k.id.qualified === id && k.status.type === "stopped" && k.status.exit_code === 0)

/**
 * The daemons a start will wait for, as `startWithDependencies` plans it (src/control/startSet.ts):
 * the dependencies it starts, then the requested daemons that do not run yet (all of them with
 * `force`), but for disabled ones (refused). A daemon that waits for dependencies first says so
 * (`app/migrate to complete`). `completedHere`: whether a daemon's `completed_once` is met. `configured`: the configured
 * definitions by ID (any project's, not one directory's).
 */
export const waitingListOf = (
  defs: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  force: boolean,
  configured: ReadonlyMap<string, DaemonDefinition>,
  known: ReadonlyArray<ApiDaemonEntry>,
  disabledIds: ReadonlyArray<string>,
  completedHere: (id: string) => boolean = exitedZero(known),
): ReadonlyArray<Waiting> => {
  const isRunning = (id: string) => known.some((k) => k.id.qualified === id && isActive(k))
  const forced = new Set(force ? defs.map((d) => d.id.qualified) : [])
  const set = startSet(defs, dependencies, forced, (id) => ({
    running: isRunning(id),
    completedHere: completedHere(id),
  }))
  const starts = (d: DaemonDefinition) => set.all.has(d.id.qualified) && !set.running.has(d.id.qualified)
  // dependencies first, then the requested daemons; a disabled daemon is refused, not waited for
  return [...dependencies.filter(starts), ...defs.filter(starts)]
    .filter((d) => !disabledIds.includes(d.id.qualified))
    .map((d) => {
      // first it waits for its dependencies (a running one only until it completes)
      const pending = d.config.depends
        .map((id) => ({ id, condition: conditionOf(d.config, id) }))
        .filter((p) => set.all.has(p.id) && (awaitsExit(p.condition) || !isRunning(p.id)))
      return pending.length > 0
        ? { id: d.id.qualified, what: dependenciesText(pending), dependencies: pending }
        : { id: d.id.qualified, what: waitingFor(d, configured, known) }
    })
}
