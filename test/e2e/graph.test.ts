/**
 * `supervisor graph` through the built CLI (docs/graph.md): the dependency graph of a project in
 * every format, each edge with its condition and each daemon with its status; the Mermaid output
 * read back, the dot output rendered by Graphviz, the JSON decoded by its schema.
 */
import { spawnSync } from "node:child_process"
import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DependencyGraph } from "../../src/domain/DependencyGraph.js"
import { type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cliAsync(args, proj)

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "shop",
    `
[daemons.db]
run = "exec sleep 300"
ready_delay = 0.1

[daemons.migrate]
run = "true"
depends = ["db"]

[daemons.api]
run = "exec sleep 300"
depends = ["db", { id = "migrate", condition = "completed" }]

[daemons.web]
run = "exec sleep 300"
depends = [{ id = "api", condition = "started" }]

[daemons.lone]
run = "exec sleep 300"
`,
  )
  expect((await cli("start", "db")).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

const EDGES = [
  { from: "shop/api", to: "shop/db", condition: "ready" },
  { from: "shop/api", to: "shop/migrate", condition: "completed" },
  { from: "shop/migrate", to: "shop/db", condition: "ready" },
  { from: "shop/web", to: "shop/api", condition: "started" },
]

describe("supervisor graph", () => {
  it(
    "json: every daemon with its status, every dependency with its condition",
    async () => {
      const r = await cli("graph", "--json")
      expect(r.status, r.stderr).toBe(0)
      const g = Schema.decodeUnknownSync(DependencyGraph)(JSON.parse(r.stdout))
      expect(g.nodes).toEqual([
        { id: "shop/api", status: "available" },
        { id: "shop/db", status: "running" },
        { id: "shop/lone", status: "available" },
        { id: "shop/migrate", status: "available" },
        { id: "shop/web", status: "available" },
      ])
      expect(g.edges).toEqual(EDGES)
      const same = await cli("graph", "--format", "json")
      expect(same.stdout).toBe(r.stdout)
    },
    T,
  )

  it(
    "IDs: those daemons and what they depend on, not what depends on them",
    async () => {
      const g = JSON.parse((await cli("graph", "api", "--json")).stdout) as typeof DependencyGraph.Type
      expect(g.nodes.map((n) => n.id)).toEqual(["shop/api", "shop/db", "shop/migrate"])
      const unknown = await cli("graph", "nope")
      expect(unknown.status).not.toBe(0)
      expect(unknown.stderr).toContain("nope")
    },
    T,
  )

  it(
    "text: a tree from the daemons nothing depends on, a daemon drawn twice marked",
    async () => {
      const r = await cli("graph")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout.trimEnd().split("\n")).toEqual([
        "shop/lone available",
        "shop/web available",
        "└── shop/api [started] available",
        "    ├── shop/db [ready] running",
        "    └── shop/migrate [completed] available",
        "        └── shop/db [ready] running",
      ])
    },
    T,
  )

  it(
    "mermaid: a flowchart whose nodes and labelled edges read back as the graph",
    async () => {
      const r = await cli("graph", "--format", "mermaid")
      expect(r.status, r.stderr).toBe(0)
      const lines = r.stdout.trimEnd().split("\n")
      expect(lines[0]).toBe("flowchart TD")
      const names = new Map<string, { id: string; status: string }>()
      const edges: Array<{ from: string; to: string; condition: string }> = []
      for (const line of lines.slice(1)) {
        const node = /^ {2}(\w+)\["([^"<]+)<br\/>(\w+)"\]$/.exec(line)
        const edge = /^ {2}(\w+) -->\|(\w+)\| (\w+)$/.exec(line)
        if (node !== null) names.set(node[1]!, { id: node[2]!, status: node[3]! })
        else if (edge !== null)
          edges.push({ from: names.get(edge[1]!)!.id, to: names.get(edge[3]!)!.id, condition: edge[2]! })
        else throw new Error(`not a line of ours: ${line}`)
      }
      expect([...names.values()].find((n) => n.id === "shop/db")?.status).toBe("running")
      expect(names.size).toBe(5)
      expect(edges).toEqual(EDGES)
    },
    T,
  )

  it(
    "dot: Graphviz renders it, with every daemon and condition",
    async () => {
      const r = await cli("graph", "--format", "dot")
      expect(r.status, r.stderr).toBe(0)
      const svg = spawnSync("dot", ["-Tsvg"], { input: r.stdout, encoding: "utf8" })
      expect(svg.status, svg.stderr).toBe(0)
      expect(svg.stderr).toBe("")
      for (const text of ["shop/web", "shop/lone", "completed", "started", "running"])
        expect(svg.stdout).toContain(text)
      expect(svg.stdout.match(/class="edge"/g)?.length).toBe(EDGES.length)
    },
    T,
  )
})
