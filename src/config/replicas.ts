// A daemon with `instances` as the definitions the supervisor runs (docs/replicas.md): one per
// instance, `<name>.<index>`, its ports shifted by index - 1, and dependencies on a replicated
// daemon meaning every one of its instances.
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { DaemonId, toIdObject } from "../domain/DaemonId.js"
import { instanceIds, instanceName } from "../domain/Instances.js"

/** Counts that replace the configured `instances` of some daemons (`supervisor scale`), by qualified ID. */
export type ScaledCounts = ReadonlyMap<string, number>

/** How many instances of `def` run: the scaled count, else its `instances`; undefined when not replicated. */
export const countOf = (def: DaemonDefinition, scaled?: ScaledCounts): number | undefined =>
  def.config.instances === undefined ? undefined : (scaled?.get(def.id.qualified) ?? def.config.instances)

/** The configuration with every expected port moved by `offset` (instance i: i - 1; bump still applies). */
const instanceConfigOf = (config: DaemonConfig, offset: number): DaemonConfig =>
  config.port === undefined || offset === 0
    ? config
    : new DaemonConfig({
        ...config,
        port: { ...config.port, expect: config.port.expect.map((p) => p + offset) },
      })

/** Instance `index` of a replicated daemon's definition. */
export const instanceOf = (def: DaemonDefinition, index: number): DaemonDefinition => {
  const id = new DaemonId({ namespace: def.id.namespace, name: instanceName(def.id.name, index) })
  const config = instanceConfigOf(def.config, index - 1)
  return { ...def, id: toIdObject(id), config, instance: { daemon: def.id.qualified, index } }
}

/** The daemon an instance's definition belongs to: its first instance has the daemon's own ports. */
export const baseOf = (first: DaemonDefinition): DaemonDefinition => {
  const { instance, ...def } = first
  if (instance === undefined) return first
  const id = new DaemonId({
    namespace: first.id.namespace,
    name: instance.daemon.slice(instance.daemon.indexOf("/") + 1),
  })
  return { ...def, id: toIdObject(id), config: instanceConfigOf(first.config, 1 - instance.index) }
}

/** Dependencies on a replicated daemon become dependencies on each of its instances. */
const expandDepends = (def: DaemonDefinition, counts: ReadonlyMap<string, number>): DaemonDefinition => {
  if (!def.config.depends.some((d) => counts.has(d))) return def
  const depends = def.config.depends.flatMap((d) => {
    const n = counts.get(d)
    return n === undefined ? [d] : instanceIds(d, n)
  })
  const conditions = Object.fromEntries(
    Object.entries(def.config.depends_conditions).flatMap(([d, c]) => {
      const n = counts.get(d)
      return (n === undefined ? [d] : instanceIds(d, n)).map((id) => [id, c] as const)
    }),
  )
  return { ...def, config: new DaemonConfig({ ...def.config, depends, depends_conditions: conditions }) }
}

/** The definitions to run: each replicated daemon as its instances, dependencies expanded. */
export const expandReplicas = (
  defs: Iterable<DaemonDefinition>,
  scaled?: ScaledCounts,
): Map<string, DaemonDefinition> => {
  const all = [...defs]
  const counts = new Map<string, number>()
  for (const d of all) {
    const n = countOf(d, scaled)
    if (n !== undefined) counts.set(d.id.qualified, n)
  }
  const out = new Map<string, DaemonDefinition>()
  for (const d of all) {
    const def = expandDepends(d, counts)
    const n = counts.get(d.id.qualified)
    if (n === undefined) out.set(def.id.qualified, def)
    else
      for (let i = 1; i <= n; i++) {
        const instance = instanceOf(def, i)
        out.set(instance.id.qualified, instance)
      }
  }
  return out
}
