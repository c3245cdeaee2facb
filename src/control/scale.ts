// `supervisor scale api 5` (docs/replicas.md): the count of a replicated daemon's instances,
// changed while it runs. Instances above the count stop highest first and are forgotten; the
// missing ones start. The count lasts until the daemon is stopped as a whole.
import { Effect } from "effect"
import type { ScaledCounts } from "../config/replicas.js"
import type { StopResult } from "../domain/CliOutput.js"
import type { Scale } from "../domain/Command.js"
import { type DaemonNotFound, UsageError } from "../domain/CommandErrors.js"
import { isActive } from "../domain/DaemonStatus.js"
import { instanceIds } from "../domain/Instances.js"
import type { Reason } from "../domain/Reason.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { ProjectRegistryShape } from "../registry/ProjectRegistry.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { instanceCount, knownInstances } from "./instances.js"
import { type SelectDeps, selectDaemons } from "./selectFor.js"

/** Starts `ids` (and what they need), waiting until each is ready: the handler's own start. */
export type StartIds<E> = (
  ids: ReadonlyArray<string>,
  config: ResolvedConfig | undefined,
  reason: Reason,
) => Effect.Effect<ReadonlyArray<StartOutcome>, E>

/** What scale needs of the handler (src/control/handle.ts). */
export interface ScaleDeps extends SelectDeps {
  readonly sup: Pick<SupervisorShape, "list" | "clean">
  readonly stop: (
    ids: ReadonlyArray<string>,
    reason: Reason,
  ) => Effect.Effect<ReadonlyArray<StopResult>, DaemonNotFound>
  readonly setScaled: (id: string, count: number | undefined) => Effect.Effect<void>
}

export const makeScale =
  <E>(deps: ScaleDeps, startIds: StartIds<E>) =>
  (c: Scale) =>
    Effect.gen(function* () {
      const from = c.from === undefined ? {} : { from: c.from }
      const selected = yield* selectDaemons(deps, { ids: [c.id], all: false, ...from }, "configured")
      const id = selected.ids[0]!
      const known = yield* deps.known
      const counted = instanceCount(id, selected.config, known, yield* deps.scaled)
      if (counted === undefined) {
        const name = id.slice(id.indexOf("/") + 1)
        return yield* new UsageError({
          message: `${id} runs one process: only a daemon with \`instances\` is scaled; add instances = 1 to [daemons.${name}] in its file, then scale it`,
        })
      }
      const instances = knownInstances(id, known)
      const previous = instances.filter((k) => isActive(k)).length
      yield* deps.setScaled(id, c.count)
      const ran = new Set((yield* deps.sup.list).map((r) => r.def.id.qualified))
      // highest first, one at a time: the proxy stops sending to each before the next goes
      const above = instances
        .filter((k) => k.instance!.index > c.count && ran.has(k.id.qualified))
        .map((k) => k.id.qualified)
        .reverse()
      const stopped: Array<StopResult> = []
      for (const instance of above) stopped.push(...(yield* deps.stop([instance], c.reason)))
      if (above.length > 0) yield* deps.sup.clean(above)
      const started = yield* startIds(instanceIds(id, c.count), selected.config, c.reason)
      return { daemon: id, previous, count: c.count, started, stopped }
    })

/** What forgetting counts needs: the counts, the daemons that ran, those configured. */
export interface ForgetDeps {
  readonly scaled: Effect.Effect<ScaledCounts>
  readonly setScaled: ScaleDeps["setScaled"]
  readonly projects: Pick<ProjectRegistryShape, "definitions">
  readonly sup: {
    readonly list: Effect.Effect<ReadonlyArray<Pick<DaemonState, "def" | "status">>>
    readonly clean: SupervisorShape["clean"]
  }
}

/**
 * A scaled daemon none of whose instances runs any more is back to its configured count: the
 * count is forgotten, and, after a stop (`clean`), so are its stopped instances above the
 * configured count. When a supervisor starts, only the counts go (what it adopted keeps its
 * count; what did not survive, a reboot say, does not): its records and logs stay, since a
 * project whose file does not load then would count no instance as configured.
 */
export const forgetStaleCounts = (deps: ForgetDeps, clean = true) =>
  Effect.gen(function* () {
    const scaled = yield* deps.scaled
    if (scaled.size === 0) return
    const all = yield* deps.sup.list
    const defs = yield* deps.projects.definitions
    for (const id of scaled.keys()) {
      const instances = all.filter((r) => r.def.instance?.daemon === id)
      if (instances.some(isActive)) continue
      yield* deps.setScaled(id, undefined)
      if (!clean) continue
      const configured = defs.filter((d) => d.instance?.daemon === id).length
      const extra = instances.filter((r) => r.def.instance!.index > configured).map((r) => r.def.id.qualified)
      if (extra.length > 0) yield* deps.sup.clean(extra)
    }
  })
