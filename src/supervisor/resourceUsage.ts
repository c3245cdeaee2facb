import { Effect } from "effect"
import type { ProcessSamplerShape } from "../process/ProcessSampler.js"
import { type DaemonState, isActive } from "./DaemonState.js"

/** What a running daemon's process tree uses right now. */
export interface DaemonUsage {
  /** A TCP port the tree listens on (see `daemonUsage`); null when none. */
  readonly activePort: number | null
  /** CPU use of the whole tree, in percent of one core (`TreeUsage.cpuPercent`). */
  readonly cpuPercent: number
  /** Resident memory of the whole tree, in bytes. */
  readonly memoryBytes: number
}

/** The daemon's resolved ports in order, the first that is listening; else its lowest listening port; else null. */
export const activePort = (
  resolved: ReadonlyArray<number>,
  listening: ReadonlyArray<number>,
): number | null => resolved.find((p) => listening.includes(p)) ?? listening[0] ?? null

/**
 * Usage of each running daemon from the sampler's shared pass (nothing is read when none runs):
 * its process tree (descendants and process group). `activePort` prefers the daemon's resolved
 * ports in order (the first that is listening), else its lowest listening port, so it also works
 * for daemons without `port`.
 */
export const daemonUsage = (
  sampler: ProcessSamplerShape,
  runtimes: ReadonlyArray<DaemonState>,
): Effect.Effect<ReadonlyMap<string, DaemonUsage>> =>
  Effect.gen(function* () {
    const out = new Map<string, DaemonUsage>()
    const running = runtimes.filter((r) => isActive(r) && r.pid !== null)
    if (running.length === 0) return out
    const trees = yield* sampler.sample(running.map((r) => r.pid as number))
    const ports = yield* sampler.listeningPorts(
      running.map((r) => trees.get(r.pid as number)?.processes.map((p) => p.pid) ?? []),
    )
    running.forEach((r, i) => {
      const tree = trees.get(r.pid as number)
      const listening = ports[i] ?? []
      out.set(r.def.id.qualified, {
        activePort: activePort(r.ports, listening),
        cpuPercent: tree?.cpuPercent ?? 0,
        memoryBytes: tree?.memoryBytes ?? 0,
      })
    })
    return out
  })
