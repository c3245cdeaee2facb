import { describe, expect, it } from "vitest"
import { instanceCount, withInstances } from "../../src/control/instances.js"
import { mergeDefinitions } from "../../src/control/listing.js"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import { def } from "./defs.js"

/** Listing entries of never-run definitions: api.1 to api.n of app/api, and app/web. */
const known = (n: number): ReadonlyArray<ApiDaemonEntry> =>
  mergeDefinitions(
    [],
    [],
    [
      ...Array.from({ length: n }, (_, i) => def(`api.${i + 1}`, { daemon: "app/api", index: i + 1 })),
      def("web"),
    ],
  )

describe("a replicated daemon selected", () => {
  it("is its first N instances for a start: the scaled count, else as many as are configured", () => {
    expect(withInstances(["app/api", "app/web"], undefined, known(3), new Map(), "configured")).toEqual([
      "app/api.1",
      "app/api.2",
      "app/api.3",
      "app/web",
    ])
    expect(withInstances(["app/api"], undefined, known(3), new Map([["app/api", 1]]), "configured")).toEqual([
      "app/api.1",
    ])
  })

  it("is every instance known too for a stop (one scaled above the count included)", () => {
    expect(withInstances(["app/api"], undefined, known(4), new Map([["app/api", 2]]), "running")).toEqual([
      "app/api.1",
      "app/api.2",
      "app/api.3",
      "app/api.4",
    ])
  })

  it("an instance or another daemon is itself; a daemon without instances has no count", () => {
    expect(withInstances(["app/api.2", "app/web"], undefined, known(3), new Map(), "configured")).toEqual([
      "app/api.2",
      "app/web",
    ])
    expect(instanceCount("app/web", undefined, known(3), new Map())).toBeUndefined()
    expect(instanceCount("app/api", undefined, known(3), new Map())).toBe(3)
  })
})
