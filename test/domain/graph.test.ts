import { describe, expect, it } from "vitest"
import { buildGraph } from "../../src/domain/DependencyGraph.js"
import { graphDot, graphMermaid, graphText } from "../../src/domain/graphFormats.js"

const d = (depends: Array<string>, conditions: Record<string, "ready" | "completed" | "started"> = {}) => ({
  depends,
  depends_conditions: conditions,
})

describe("the dependency graph", () => {
  it("roots and what they depend on; an undeclared dependency drawn with its status", () => {
    const g = buildGraph(
      { "a/x": d(["a/y", "b/z"], { "b/z": "started" }), "a/y": d([]), "a/w": d([]) },
      (id) => (id === "b/z" ? "running" : "stopped"),
      ["a/x"],
    )
    expect(g.nodes).toEqual([
      { id: "a/x", status: "stopped" },
      { id: "a/y", status: "stopped" },
      { id: "b/z", status: "running" },
    ])
    expect(g.edges).toEqual([
      { from: "a/x", to: "a/y", condition: "ready" },
      { from: "a/x", to: "b/z", condition: "started" },
    ])
  })

  it("a cycle is drawn once and marked, not followed forever", () => {
    const g = buildGraph({ "a/p": d(["a/q"]), "a/q": d(["a/p"]) }, () => "stopped")
    expect(graphText(g).split("\n")).toEqual([
      "a/p stopped",
      "└── a/q [ready] stopped",
      "    └── a/p [ready] stopped (cycle)",
    ])
  })

  it("names with characters Mermaid and dot read as syntax are quoted", () => {
    const g = buildGraph({ 'we"ird/a-b.c': d([]) }, () => "run<ning>")
    expect(graphMermaid(g)).toContain('["we#34;ird/a-b.c<br/>run#60;ning#62;"]')
    expect(graphDot(g)).toContain('"we\\"ird/a-b.c" [label="we\\"ird/a-b.c\\nrun<ning>"];')
  })
})
