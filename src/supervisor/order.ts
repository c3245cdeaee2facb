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
