import { describe, expect, it } from "vitest"
import { exportConfig } from "../../src/export/index.js"
import { EXPORT_TARGETS } from "../../src/export/model.js"
import { useSandbox } from "../config/helpers.js"
import { loadShop } from "./fixture.js"

describe("export: what every target shares", () => {
  const sandbox = useSandbox()

  it.each(EXPORT_TARGETS)(
    "%s: two daemons with the same exported name: the one sorted later is left out, with a warning",
    async (target) => {
      const config = await loadShop(sandbox(), '[daemons.a_b]\nrun = "one"\n[daemons."a.b"]\nrun = "two"\n')
      const { files, warnings } = exportConfig(target, config)
      const text = files.map((f) => f.content).join("\n")
      expect(text).toContain("two")
      expect(text).not.toContain("one")
      expect(warnings).toContain(
        "shop/a_b: name is exported as shop--a-b, as shop/a.b is: left out; rename one of them",
      )
    },
  )

  it.each(EXPORT_TARGETS)("%s: the supervisor's own keys are each warned about", async (target) => {
    const config = await loadShop(
      sandbox(),
      '[daemons.w]\nrun = "x"\nwatch = ["*.js"]\nauto = ["start"]\npty = true\nhooks = { on_ready = "echo up" }\n',
    )
    const { warnings } = exportConfig(target, config)
    for (const key of ["watch", "auto", "pty", "hooks"])
      expect(
        warnings.some((w) => w.startsWith(`shop/w: ${key} `)),
        key,
      ).toBe(true)
  })
})
