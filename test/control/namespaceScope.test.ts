import { describe, expect, it } from "vitest"
import { emptyConfig } from "../../src/cli/session.js"
import { projectNamespaces } from "../../src/control/selection.js"
import { inNamespaces } from "../../src/domain/DaemonId.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"

describe("inNamespaces", () => {
  it("keeps the daemons of the namespaces given, every daemon when none is", () => {
    const ids = ["app", "shop", "tools"].map((namespace) => ({ namespace }))
    expect(ids.filter(inNamespaces(["shop", "tools"])).map((i) => i.namespace)).toEqual(["shop", "tools"])
    expect(ids.filter(inNamespaces([]))).toEqual(ids)
  })
})

describe("projectNamespaces", () => {
  it("is the project files' namespaces and the one short IDs mean there", () => {
    const config: ResolvedConfig = {
      ...emptyConfig("/work/shop"),
      namespace: "shop",
      files: [
        { path: "/work/shop/supervisor.toml", level: "project", namespace: "shop" },
        { path: "/work/shop/sub/supervisor.toml", level: "project", namespace: "shop-sub" },
        { path: "/home/u/.config/supervisor/config.toml", level: "user", namespace: "global" },
      ] as ResolvedConfig["files"],
    }
    expect(projectNamespaces(config)).toEqual(["shop", "shop-sub"])
  })
  it("is the directory's name where no file is", () => {
    expect(projectNamespaces(emptyConfig("/work/plain"))).toEqual(["plain"])
  })
})
