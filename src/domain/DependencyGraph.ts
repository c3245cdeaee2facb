// `supervisor graph` (docs/graph.md): the daemons of a configuration and their dependencies, each
// edge with the condition its dependent waits for, each daemon with its status now.
import { Schema } from "effect"
import { conditionOf, DependencyCondition } from "./Dependency.js"

export const GraphNode = Schema.Struct({
  id: Schema.String.annotations({ description: "The qualified daemon ID" }),
  status: Schema.String.annotations({
    description: "Its status now (running, stopped, ...), or available when it never ran",
  }),
})

export const GraphEdge = Schema.Struct({
  from: Schema.String.annotations({ description: "The dependent" }),
  to: Schema.String.annotations({ description: "The dependency it waits for" }),
  condition: DependencyCondition,
})

export const DependencyGraph = Schema.Struct({
  nodes: Schema.Array(GraphNode).annotations({ description: "Every daemon drawn, sorted by ID" }),
  edges: Schema.Array(GraphEdge).annotations({
    description: "Every dependency, by dependent then dependency",
  }),
}).annotations({ identifier: "DependencyGraph" })
export type DependencyGraph = typeof DependencyGraph.Type

/** What the graph needs of a configured daemon. */
export interface GraphDaemon {
  readonly depends: ReadonlyArray<string>
  readonly depends_conditions: Readonly<Record<string, DependencyCondition>>
}

/**
 * The graph of `roots` and everything they depend on (every configured daemon without roots),
 * with `statusOf` each. A dependency the configuration does not declare is drawn all the same.
 */
export const buildGraph = (
  daemons: Readonly<Record<string, GraphDaemon>>,
  statusOf: (id: string) => string,
  roots?: ReadonlyArray<string>,
): DependencyGraph => {
  const seen = new Set<string>()
  const edges: Array<typeof GraphEdge.Type> = []
  const visit = (id: string) => {
    if (seen.has(id)) return
    seen.add(id)
    const d = daemons[id]
    if (d === undefined) return
    for (const dep of d.depends) {
      edges.push({ from: id, to: dep, condition: conditionOf(d, dep) })
      visit(dep)
    }
  }
  for (const id of roots ?? Object.keys(daemons)) visit(id)
  const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return {
    nodes: [...seen].sort(byId).map((id) => ({ id, status: statusOf(id) })),
    edges: edges.sort((a, b) => byId(a.from, b.from) || byId(a.to, b.to)),
  }
}

/**
 * The graph of a configuration's daemons (`roots` and what they depend on, or every one), each
 * with `statusOf`: what `supervisor graph` draws, and the dashboard's view of a daemon's dependencies.
 */
export const configGraph = (
  config: { readonly daemons: Readonly<Record<string, { readonly config: GraphDaemon }>> },
  statusOf: (id: string) => string,
  roots?: ReadonlyArray<string>,
): DependencyGraph =>
  buildGraph(
    Object.fromEntries(Object.entries(config.daemons).map(([id, d]) => [id, d.config] as const)),
    statusOf,
    roots,
  )
