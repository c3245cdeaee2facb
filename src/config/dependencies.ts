/**
 * Finds a dependency cycle, if any, as a path that starts and ends at the same
 * node (`a -> b -> a`). Nodes are visited in the given order, so the result is stable.
 */
export const findCycle = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<string> | undefined => {
  const state = new Map<string, "visiting" | "done">()
  const stack: Array<string> = []
  const visit = (node: string): Array<string> | undefined => {
    const s = state.get(node)
    if (s === "done") return undefined
    if (s === "visiting") return [...stack.slice(stack.indexOf(node)), node]
    state.set(node, "visiting")
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    state.set(node, "done")
    return undefined
  }
  for (const node of graph.keys()) {
    const cycle = visit(node)
    if (cycle) return cycle
  }
  return undefined
}
