// Which daemons a start involves (docs/dependencies.md#starting): the requested ones and the
// dependencies they need, walking no further than a dependency that is satisfied already.
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { conditionOf } from "../domain/Dependency.js"

/** What a start needs to know of a daemon before it plans. */
export interface DaemonNow {
  /** It runs now (starting, running or stopping). */
  readonly running: boolean
  /** It does not run, and its last run, under this supervisor, exited 0 (`completed_once` is met). */
  readonly completedHere: boolean
}

export const NOT_RUN: DaemonNow = { running: false, completedHere: false }

/** The daemons of a start: `all` by ID, and which of them run already (waited for, not started). */
export interface StartSet {
  readonly all: ReadonlyMap<string, DaemonDefinition>
  readonly running: ReadonlySet<string>
}

/**
 * A requested daemon that runs (and is not forced) needs nothing. A dependency that runs is
 * waited for (its `AlreadyRunning` outcome, or its completion) but its own dependencies are not
 * walked: they were met when it started, so a completed one-shot behind it does not run again.
 * A `completed_once` dependency that completed under this supervisor is met and left out. Any
 * other dependency starts, and its dependencies are walked the same way.
 */
export const startSet = (
  requested: ReadonlyArray<DaemonDefinition>,
  dependencies: ReadonlyArray<DaemonDefinition>,
  forced: ReadonlySet<string>,
  now: (id: string) => DaemonNow,
): StartSet => {
  const byId = new Map<string, DaemonDefinition>()
  for (const d of dependencies) byId.set(d.id.qualified, d)
  for (const d of requested) byId.set(d.id.qualified, d)
  const all = new Map<string, DaemonDefinition>()
  const running = new Set<string>()
  const need = (d: DaemonDefinition): void => {
    if (all.has(d.id.qualified)) return
    all.set(d.id.qualified, d)
    for (const dep of d.config.depends) {
      const def = byId.get(dep)
      if (def === undefined || all.has(dep)) continue
      const state = now(dep)
      if (forced.has(dep)) need(def)
      else if (state.running) {
        all.set(dep, def)
        running.add(dep)
      } else if (conditionOf(d.config, dep) === "completed_once" && state.completedHere) continue
      else need(def)
    }
  }
  for (const d of requested) {
    const id = d.id.qualified
    if (!forced.has(id) && now(id).running) {
      if (!all.has(id)) all.set(id, d)
      running.add(id)
    } else need(d)
  }
  return { all, running }
}
