// The waiting list a spinner starts from: a daemon held for its dependencies says which, and on
// what condition, before what it waits for once it runs.
import { describe, expect, it } from "vitest"
import { configDefinitions } from "../../src/config/definitions.js"
import { waitingListOf } from "../../src/control/waiting.js"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"

const def = (
  name: string,
  depends: Record<string, "ready" | "completed" | "started"> = {},
): DaemonDefinition => ({
  id: { namespace: "shop", name, qualified: `shop/${name}`, safe_path: `shop--${name}` },
  config: new DaemonConfig({
    run: name,
    dir: "/tmp",
    ready_delay: 0.5,
    depends: Object.keys(depends).map((d) => `shop/${d}`),
    depends_conditions: Object.fromEntries(
      Object.entries(depends)
        .filter(([, c]) => c !== "ready")
        .map(([d, c]) => [`shop/${d}`, c]),
    ),
  }),
  adhoc: false,
  source: null,
})
// only its daemons are read (the ports of templates); none here has any
const config = { daemons: {} } as unknown as ResolvedConfig
const runningEntry = (name: string) =>
  ({ id: { qualified: `shop/${name}` }, status: { type: "running" } }) as unknown as ApiDaemonEntry

describe("waitingListOf", () => {
  it("names each dependency a daemon waits for, with its condition; then its own readiness for the others", () => {
    const api = def("api", { db: "ready", migrate: "completed", queue: "started" })
    const list = waitingListOf(
      [api],
      [def("db"), def("migrate"), def("queue")],
      false,
      configDefinitions(config),
      [],
      [],
    )
    expect(list).toEqual([
      { id: "shop/db", what: "500ms" },
      { id: "shop/migrate", what: "500ms" },
      { id: "shop/queue", what: "500ms" },
      {
        id: "shop/api",
        what: "shop/db to be ready, shop/migrate to complete, shop/queue to start",
        dependencies: [
          { id: "shop/db", condition: "ready" },
          { id: "shop/migrate", condition: "completed" },
          { id: "shop/queue", condition: "started" },
        ],
      },
    ])
  })

  it("a running dependency is not waited for, but for one that must complete", () => {
    const api = def("api", { db: "ready", migrate: "completed" })
    const list = waitingListOf(
      [api],
      [def("db"), def("migrate")],
      false,
      configDefinitions(config),
      [runningEntry("db"), runningEntry("migrate")],
      [],
    )
    expect(list).toEqual([
      {
        id: "shop/api",
        what: "shop/migrate to complete",
        dependencies: [{ id: "shop/migrate", condition: "completed" }],
      },
    ])
  })
})
