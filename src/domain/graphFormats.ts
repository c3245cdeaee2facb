// The forms `supervisor graph` draws a dependency graph in (docs/graph.md): a text tree, Mermaid
// and Graphviz dot. JSON is the DependencyGraph schema itself.
import type { DependencyGraph } from "./DependencyGraph.js"

/**
 * Each daemon nothing depends on, then what it depends on below it: `├── app/db [ready] running`.
 * A daemon drawn already is named again with `(above)` instead of its dependencies.
 */
export const graphText = (g: DependencyGraph): string => {
  const status = new Map(g.nodes.map((n) => [n.id, n.status]))
  const deps = new Map<string, Array<{ to: string; condition: string }>>()
  for (const e of g.edges)
    deps.set(e.from, [...(deps.get(e.from) ?? []), { to: e.to, condition: e.condition }])
  const dependedOn = new Set(g.edges.map((e) => e.to))
  const lines: Array<string> = []
  const drawn = new Set<string>()
  const draw = (id: string, prefix: string, onPath: ReadonlySet<string>) => {
    const children = deps.get(id) ?? []
    children.forEach((c, i) => {
      const last = i === children.length - 1
      const again = drawn.has(c.to) && (deps.get(c.to)?.length ?? 0) > 0
      const cycle = onPath.has(c.to)
      lines.push(
        `${prefix}${last ? "└── " : "├── "}${c.to} [${c.condition}] ${status.get(c.to) ?? "unknown"}${cycle ? " (cycle)" : again ? " (above)" : ""}`,
      )
      if (cycle || again) return
      drawn.add(c.to)
      draw(c.to, `${prefix}${last ? "    " : "│   "}`, new Set([...onPath, c.to]))
    })
  }
  const roots = g.nodes.filter((n) => !dependedOn.has(n.id))
  // a graph that is one cycle has no root: start anywhere
  for (const n of roots.length > 0 ? roots : g.nodes.slice(0, 1)) {
    lines.push(`${n.id} ${n.status}`)
    drawn.add(n.id)
    draw(n.id, "", new Set([n.id]))
  }
  return lines.join("\n")
}

/** A Mermaid node name: letters, digits and underscores only. */
const mermaidName = (id: string, index: number) => `d${index}_${id.replace(/[^A-Za-z0-9_]/g, "_")}`
/** Text in a Mermaid label: quotes and the characters Mermaid reads as markup, as entities. */
const mermaidText = (s: string) => s.replace(/[#"<>]/g, (c) => `#${c.charCodeAt(0)};`)

/** `flowchart TD`, a node per daemon labelled with its ID and status, an edge per dependency labelled with its condition. */
export const graphMermaid = (g: DependencyGraph): string => {
  const names = new Map(g.nodes.map((n, i) => [n.id, mermaidName(n.id, i)]))
  return [
    "flowchart TD",
    ...g.nodes.map((n) => `  ${names.get(n.id)}["${mermaidText(n.id)}<br/>${mermaidText(n.status)}"]`),
    ...g.edges.map((e) => `  ${names.get(e.from)} -->|${e.condition}| ${names.get(e.to)}`),
  ].join("\n")
}

/** Text inside a double-quoted dot string. */
const dotEscape = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')
const dotString = (s: string) => `"${dotEscape(s)}"`

/** `digraph dependencies`, a node per daemon (its label the ID and status), an edge per dependency. */
export const graphDot = (g: DependencyGraph): string =>
  [
    "digraph dependencies {",
    "  rankdir=TB;",
    "  node [shape=box];",
    ...g.nodes.map((n) => `  ${dotString(n.id)} [label="${dotEscape(n.id)}\\n${dotEscape(n.status)}"];`),
    ...g.edges.map((e) => `  ${dotString(e.from)} -> ${dotString(e.to)} [label=${dotString(e.condition)}];`),
    "}",
  ].join("\n")
