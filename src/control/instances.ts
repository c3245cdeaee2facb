// A selected replicated daemon means its instances (docs/replicas.md): `start api` starts
// api.1 to api.N, `stop api` stops every instance that runs, scaled ones included.
import type { ScaledCounts } from "../config/replicas.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { instanceIds } from "../domain/Instances.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"

/** The instances of `id` the supervisor knows (ran, or configured by a known project), by index. */
export const knownInstances = (id: string, known: ReadonlyArray<ApiDaemonEntry>): Array<ApiDaemonEntry> =>
  known.filter((k) => k.instance?.daemon === id).sort((a, b) => a.instance!.index - b.instance!.index)

/**
 * How many instances of `id` run when it starts: the scaled count, else its configured
 * `instances`, else as many as a known project configures; undefined when it is not replicated.
 */
export const instanceCount = (
  id: string,
  config: ResolvedConfig | undefined,
  known: ReadonlyArray<ApiDaemonEntry>,
  scaled: ScaledCounts,
): number | undefined => {
  const daemon = config?.daemons[id]
  if (daemon !== undefined && daemon.config.instances === undefined) return undefined
  const configured =
    daemon?.config.instances ?? knownInstances(id, known).filter((k) => k.source !== null).length
  if (daemon === undefined && configured === 0 && !scaled.has(id)) return undefined
  return scaled.get(id) ?? configured
}

/**
 * The IDs with each replicated daemon replaced by its instances: the first N for a start
 * (`configured`), and every known one too for a stop or a restart (`running`).
 */
export const withInstances = (
  ids: ReadonlyArray<string>,
  config: ResolvedConfig | undefined,
  known: ReadonlyArray<ApiDaemonEntry>,
  scaled: ScaledCounts,
  allMeans: "configured" | "running",
): Array<string> => {
  const out = ids.flatMap((id) => {
    const count = instanceCount(id, config, known, scaled)
    if (count === undefined) return [id]
    const wanted = instanceIds(id, count)
    if (allMeans === "configured") return wanted
    const present = knownInstances(id, known).map((k) => k.id.qualified)
    return [...new Set([...wanted, ...present])]
  })
  return [...new Set(out)]
}
