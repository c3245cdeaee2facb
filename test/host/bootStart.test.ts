import { describe, expect, it } from "vitest"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { bootPlan } from "../../src/host/bootStart.js"

const def = (namespace: string, name: string, options: { boot?: boolean; depends?: Array<string> } = {}) =>
  ({
    id: { namespace, name, qualified: `${namespace}/${name}`, safe_path: `${namespace}--${name}` },
    config: new DaemonConfig({
      run: name,
      dir: "/tmp",
      depends: options.depends ?? [],
      boot_start: options.boot ?? false,
    }),
    adhoc: false,
    source: null,
  }) satisfies DaemonDefinition
const map = (...defs: Array<DaemonDefinition>) => new Map(defs.map((d) => [d.id.qualified, d]))
const ids = (defs: ReadonlyArray<DaemonDefinition>) => defs.map((d) => d.id.qualified).sort()

describe("bootPlan", () => {
  it("requests the boot_start daemons of every source, with their dependencies (across sources), not the others", () => {
    const plan = bootPlan([
      map(def("global", "proxy", { boot: true }), def("global", "idle")),
      map(
        def("app", "web", { boot: true, depends: ["app/api"] }),
        def("app", "api", { depends: ["global/db"] }),
      ),
      map(def("global", "db"), def("other", "job")),
    ])
    expect(ids(plan.requested)).toEqual(["app/web", "global/proxy"])
    expect(ids(plan.dependencies)).toEqual(["app/api", "global/db"])
    expect(plan.force).toBe(false)
  })

  it("the first source that defines an ID wins; nothing marked: nothing to start", () => {
    const plan = bootPlan([map(def("app", "web")), map(def("app", "web", { boot: true }))])
    expect(plan.requested).toEqual([])
    expect(bootPlan([]).requested).toEqual([])
  })
})
