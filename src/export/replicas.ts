// Replicas in the export targets (docs/export.md): Kubernetes, Compose and Nomad run a daemon's
// `instances` as copies of one definition (replicas, deploy.replicas, Count); systemd, which has
// no count, gets one unit per instance, each with its own ports, as the supervisor runs them.
import { expandReplicas } from "../config/replicas.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"

/** How many copies of the daemon run: its `instances`, else 1. */
export const replicasOf = (d: ResolvedDaemon): number => d.config.instances ?? 1

/** The configuration with each replicated daemon as its instances (`api.1` ...), dependencies on each. */
export const withInstances = (config: ResolvedConfig): ResolvedConfig => {
  if (!Object.values(config.daemons).some((d) => d.config.instances !== undefined)) return config
  const byId = new Map(Object.values(config.daemons).map((d) => [d.id.qualified, d] as const))
  const defs = expandReplicas(
    Object.values(config.daemons).map((d) => ({
      id: d.id,
      config: d.config,
      adhoc: false,
      source: d.source,
    })),
  )
  const daemons: Record<string, ResolvedDaemon> = {}
  for (const def of defs.values()) {
    const from = byId.get(def.instance?.daemon ?? def.id.qualified)!
    daemons[def.id.qualified] = { id: def.id, config: def.config, source: from.source, sources: from.sources }
  }
  return { ...config, daemons }
}

/** `api.2` of a daemon with `instances` (an instance unit of systemd): 2; else 1. */
export const instanceIndex = (d: ResolvedDaemon): number => {
  if (d.config.instances === undefined) return 1
  const m = /\.([1-9][0-9]*)$/.exec(d.id.name)
  return m === null ? 1 : Number(m[1])
}
