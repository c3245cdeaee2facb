import { describe, expect, it } from "vitest"
import { listRows } from "../../src/cli/listGroups.js"
import { mergeDefinitions } from "../../src/control/listing.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { DaemonId, toIdObject } from "../../src/domain/DaemonId.js"

const def = (name: string, instance?: { daemon: string; index: number }): DaemonDefinition => ({
  id: toIdObject(new DaemonId({ namespace: "app", name })),
  config: new DaemonConfig({ run: "x", dir: "/app" }),
  adhoc: false,
  source: "/app/supervisor.toml",
  ...(instance === undefined ? {} : { instance }),
})

describe("list rows", () => {
  it("put a row for the daemon before its instances, by index (api.10 after api.9)", () => {
    const rows = listRows(
      mergeDefinitions(
        [],
        [],
        [
          ...Array.from({ length: 10 }, (_, i) => def(`api.${i + 1}`, { daemon: "app/api", index: i + 1 })),
          def("web"),
        ],
      ),
    )
    expect(rows.map((r) => (r._tag === "Group" ? `[${r.daemon}]` : r.entry.id.name))).toEqual([
      "[app/api]",
      ...Array.from({ length: 10 }, (_, i) => `api.${i + 1}`),
      "web",
    ])
  })
})
