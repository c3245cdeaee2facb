import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { expandReplicas, type ScaledCounts } from "./replicas.js"

/**
 * The daemons of a resolved configuration as definitions the supervisor can start: a daemon with
 * `instances` as its instances (src/config/replicas.ts), `scaled` replacing some counts.
 */
export const configDefinitions = (
  config: ResolvedConfig,
  scaled?: ScaledCounts,
): Map<string, DaemonDefinition> =>
  expandReplicas(
    Object.values(config.daemons).map(
      (d) =>
        ({
          id: d.id,
          config: d.config,
          adhoc: false,
          source: d.source,
          ...(d.worktree === undefined ? {} : { worktree: d.worktree }),
        }) satisfies DaemonDefinition,
    ),
    scaled,
  )

/** Every definition the given ones depend on, transitively, that is not among them. */
export const dependencyClosure = (
  defs: ReadonlyArray<DaemonDefinition>,
  available: ReadonlyMap<string, DaemonDefinition>,
): Array<DaemonDefinition> => {
  const requested = new Set(defs.map((d) => d.id.qualified))
  const found = new Map<string, DaemonDefinition>()
  const visit = (d: DaemonDefinition) => {
    for (const dep of d.config.depends) {
      if (requested.has(dep) || found.has(dep)) continue
      const def = available.get(dep)
      if (!def) continue
      found.set(dep, def)
      visit(def)
    }
  }
  for (const d of defs) visit(d)
  return [...found.values()]
}
