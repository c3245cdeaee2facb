import * as os from "node:os"
import { describe, expect, it } from "vitest"
import { importCompose } from "../../src/import/compose.js"
import { importPm2 } from "../../src/import/pm2.js"
import { useSandbox } from "../config/helpers.js"
import { daemon, loadImported, ok } from "./helpers.js"

const sandbox = useSandbox()
const app = (instances: unknown) => ({ apps: [{ name: "api", script: "server.js", instances }] })
const cpus = os.availableParallelism?.() ?? os.cpus().length

describe("pm2 instances", () => {
  it("a number is instances, loaded by the config loader", async () => {
    const imported = ok(importPm2(app(4), "/p/ecosystem.config.js"))
    expect(imported.warnings).toEqual([])
    expect(daemon(await loadImported(sandbox(), imported), "api").instances).toBe(4)
  })

  it("1 is one process: no instances key", async () => {
    const imported = ok(importPm2(app(1), "/p/ecosystem.config.js"))
    expect(daemon(await loadImported(sandbox(), imported), "api").instances).toBeUndefined()
  })

  it('"max" and 0 count this machine\'s CPUs (-1 one less), with a warning', () => {
    for (const [value, n] of [
      ["max", cpus],
      [0, cpus],
      [-1, Math.max(1, cpus - 1)],
    ] as const) {
      const imported = ok(importPm2(app(value), "/p/ecosystem.config.js"))
      expect(imported.warnings.map((w) => w.key)).toEqual(["apps[0].instances"])
      expect(imported.warnings[0]!.message).toContain(`counted on this machine: instances = ${n}`)
      expect(imported.daemons[0]!.keys.find(([k]) => k === "instances")?.[1]).toBe(n > 1 ? n : undefined)
    }
  })

  it("more than 64 is 64, a fraction or a word is not imported; each with a warning", () => {
    const many = ok(importPm2(app(100), "/p/e.js"))
    expect(many.warnings[0]!.message).toContain("imported as 64")
    for (const bad of [2.5, "lots"]) {
      const r = ok(importPm2(app(bad), "/p/e.js"))
      expect(r.warnings.map((w) => w.key)).toEqual(["apps[0].instances"])
      expect(r.daemons[0]!.keys.some(([k]) => k === "instances")).toBe(false)
    }
  })
})

describe("process-compose replicas", () => {
  it("replicas is instances; a command reading PC_REPLICA_NUM is warned about", async () => {
    const imported = ok(
      importCompose(
        { processes: { api: { command: "node server.js --port $((3000 + PC_REPLICA_NUM))", replicas: 3 } } },
        "/p/process-compose.yaml",
      ),
    )
    expect(imported.warnings.map((w) => w.key)).toEqual(["processes.api.command"])
    expect(imported.warnings[0]!.message).toContain("{{ daemon.instance }}")
    expect(daemon(await loadImported(sandbox(), imported), "api").instances).toBe(3)
  })
})
