import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { exportCompose } from "../../src/export/compose.js"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import { exportNomad } from "../../src/export/nomad.js"
import { exportSystemd } from "../../src/export/systemd.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop, nomadGroups } from "./fixture.js"
import { at, manifestOf, validateCompose } from "./validate.js"

const REPLICATED = `[daemons.api]
run = "node server.js --port {{ daemon.port }} --instance {{ daemon.instance }}"
instances = 3
port = 3000

[daemons.web]
run = "node web.js"
depends = ["api"]
`

describe("export of instances", () => {
  const sandbox = useSandbox()

  it("kubernetes: replicas", async () => {
    const { files } = exportKubernetes(await loadShop(sandbox(), REPLICATED))
    expect(at(manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment"), "spec.replicas")).toBe(3)
    expect(at(manifestOf(fileNamed(files, "shop--web.yaml"), "Deployment"), "spec.replicas")).toBe(1)
  })

  it("compose: deploy.replicas, a host port per replica; a valid compose file", async () => {
    const { files, warnings } = exportCompose(await loadShop(sandbox(), REPLICATED))
    const doc = parse(fileNamed(files, "compose.yaml")) as {
      services: Record<string, Record<string, unknown>>
    }
    const api = doc.services["shop--api"]!
    expect(api.deploy).toEqual({ replicas: 3 })
    expect(api.ports).toEqual(["3000-3002:3000"])
    expect(doc.services["shop--web"]!.deploy).toBeUndefined()
    expect(validateCompose(doc), JSON.stringify(validateCompose.errors)).toBe(true)
    // one definition for the three: {{ daemon.instance }} cannot be each one's
    expect(warnings).toContain("shop/api: run uses {{ daemon.instance }}: every replica is given 1")
  })

  it("nomad: Count, with a warning about the reserved ports", async () => {
    const { files, warnings } = exportNomad(await loadShop(sandbox(), REPLICATED))
    expect(nomadGroups(files).get("shop--api")!.group.Count).toBe(3)
    expect(warnings.some((w) => w.startsWith("shop/api: instances (3) is Count 3"))).toBe(true)
  })

  it("systemd: a unit per instance with its own port, dependents requiring every one", async () => {
    const { files } = exportSystemd(await loadShop(sandbox(), REPLICATED))
    expect(files.map((f) => f.path).sort()).toEqual([
      "shop--api-1.service",
      "shop--api-2.service",
      "shop--api-3.service",
      "shop--web.service",
    ])
    const second = fileNamed(files, "shop--api-2.service")
    expect(second).toContain("node server.js --port 3001 --instance 2")
    // each instance's PORT is its own port, as the supervisor gives it
    expect(second).toContain('Environment="PORT=3001"')
    expect(fileNamed(files, "shop--web.service")).toContain(
      "Requires=shop--api-1.service shop--api-2.service shop--api-3.service",
    )
  })
})
