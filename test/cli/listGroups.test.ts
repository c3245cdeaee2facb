import { describe, expect, it } from "vitest"
import { listRows } from "../../src/cli/listGroups.js"
import { mergeDefinitions } from "../../src/control/listing.js"
import { def } from "../control/defs.js"

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
