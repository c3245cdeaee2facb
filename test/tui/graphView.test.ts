import { describe, expect, it } from "vitest"
import type { DependencyCondition } from "../../src/domain/Dependency.js"
import { graphLines } from "../../src/tui/graphView.js"

/** A configuration's daemons as the graph reads them: what each depends on, and on what condition. */
const config = (
  daemons: Record<string, ReadonlyArray<string>>,
  conditions: Record<string, Record<string, DependencyCondition>> = {},
) => ({
  daemons: Object.fromEntries(
    Object.entries(daemons).map(([id, depends]) => [
      id,
      { config: { depends, depends_conditions: conditions[id] ?? {} } },
    ]),
  ) as never,
})

const row = (id: string, daemon = id) => ({ id, daemon, source: "/p/supervisor.toml" })

describe("graphLines", () => {
  const statuses: Record<string, string> = { "app/web": "running", "app/db": "running" }
  const statusOf = (id: string) => statuses[id] ?? "available"
  it("draws the daemon's dependencies as `supervisor graph` does, with conditions and statuses", () => {
    const c = config(
      { "app/web": ["app/db", "app/migrate"], "app/migrate": ["app/db"], "app/db": [], "app/other": [] },
      { "app/web": { "app/migrate": "completed" } },
    )
    expect(graphLines(row("app/web"), c, statusOf)).toEqual([
      "app/web running",
      "├── app/db [ready] running",
      "└── app/migrate [completed] available",
      "    └── app/db [ready] running",
    ])
  })
  it("draws an instance's daemon, and says when it depends on nothing", () => {
    const c = config({ "app/db": [] })
    expect(graphLines(row("app/db.2", "app/db"), c, statusOf)).toEqual([
      "app/db running",
      "",
      "app/db depends on no other daemon",
    ])
  })
  it("says so when the file no longer configures the daemon", () => {
    expect(graphLines(row("app/gone"), config({}), statusOf)).toEqual([
      "app/gone is no longer configured in /p/supervisor.toml",
    ])
  })
})
