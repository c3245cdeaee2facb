import { describe, expect, it } from "vitest"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { DaemonId, toIdObject } from "../../src/domain/DaemonId.js"
import { withPorts } from "../../src/domain/overrides.js"

const def = (name: string, index?: number): DaemonDefinition => ({
  id: toIdObject(new DaemonId({ namespace: "app", name })),
  config: new DaemonConfig({ run: "x", dir: "/app", port: { expect: [3000], bump: false } }),
  adhoc: false,
  source: null,
  ...(index === undefined ? {} : { instance: { daemon: "app/api", index } }),
})

describe("start --expected-port", () => {
  it("gives a daemon the ports as given, and instance i of a replicated one the ports plus i - 1", () => {
    const o = { expected_ports: [4000, 9229], bump: true }
    expect(withPorts(def("web"), o).config.port).toEqual({ expect: [4000, 9229], bump: true })
    expect(withPorts(def("api.1", 1), o).config.port).toEqual({ expect: [4000, 9229], bump: true })
    expect(withPorts(def("api.3", 3), o).config.port).toEqual({ expect: [4002, 9231], bump: true })
  })

  it("a lone --bump keeps each instance's own ports", () => {
    expect(withPorts(def("api.2", 2), { bump: 5 }).config.port).toEqual({ expect: [3000], bump: 5 })
  })
})
