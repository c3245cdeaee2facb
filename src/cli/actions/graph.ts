// `supervisor graph [IDS...] [--format text|mermaid|dot|json]` (docs/graph.md): the dependency
// graph of the configuration seen from here, with each daemon's status from the supervisor.
import { Console, Effect } from "effect"
import { resolveId } from "../../control/selection.js"
import { configGraph, DependencyGraph } from "../../domain/DependencyGraph.js"
import { graphDot, graphMermaid, graphText } from "../../domain/graphFormats.js"
import type { GraphOptions } from "../args/graph.js"
import { printJson } from "../output.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"

export const graph = (o: GraphOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const known = yield* knownDaemons
      const roots = yield* Effect.forEach(o.ids, (id) => resolveId(id, config, known))
      const status = new Map(known.map((d) => [d.id.qualified, d.status.type]))
      // a dependency of another project's is drawn with its status, without its own dependencies
      const g = configGraph(
        config,
        (id) => status.get(id) ?? "available",
        roots.length > 0 ? roots : undefined,
      )
      if (o.json || o.format === "json") return yield* printJson(DependencyGraph, g)
      const text = o.format === "mermaid" ? graphMermaid(g) : o.format === "dot" ? graphDot(g) : graphText(g)
      if (text !== "") yield* Console.log(text)
      else yield* Console.error("no daemons configured here")
    }),
  )
