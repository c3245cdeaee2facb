import type { DaemonDefinition } from "./DaemonDefinition.js"

// The order of a start or a stop by dependencies: levels, each of which can run at once.

/**
 * Start levels: a daemon's level is one more than its deepest dependency among the
 * given definitions (dependencies outside them are assumed to be running). Level 0 first.
 */
export const startLevels = (defs: ReadonlyMap<string, DaemonDefinition>): Array<Array<string>> => {
  const level = new Map<string, number>()
  const visit = (id: string, path: ReadonlySet<string>): number => {
    const known = level.get(id)
    if (known !== undefined) return known
    const deps = (defs.get(id)?.config.depends ?? []).filter((d) => defs.has(d) && !path.has(d))
    const next = new Set(path).add(id)
    const l = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => visit(d, next)))
    level.set(id, l)
    return l
  }
  for (const id of defs.keys()) visit(id, new Set())
  const levels: Array<Array<string>> = []
  for (const [id, l] of level) {
    const at = levels[l] ?? []
    at.push(id)
    levels[l] = at
  }
  return levels.filter((l) => l !== undefined)
}

/**
 * Stop order: dependents before their dependencies. Returns levels; each level
 * can be stopped in parallel. Unknown dependencies and cycles are tolerated
 * (cycles were rejected by the config loader; what is left goes last).
 */
export const stopLevels = (deps: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const remaining = new Set(deps.keys())
  const levels: Array<Array<string>> = []
  while (remaining.size > 0) {
    // A daemon can stop once nothing remaining depends on it.
    const level = [...remaining].filter(
      (id) => ![...remaining].some((other) => deps.get(other)?.includes(id)),
    )
    if (level.length === 0) {
      levels.push([...remaining])
      break
    }
    for (const id of level) remaining.delete(id)
    levels.push(level)
  }
  return levels
}
