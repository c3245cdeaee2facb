import * as fs from "node:fs"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { exportCompose } from "../../src/export/compose.js"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import { exportSystemd } from "../../src/export/systemd.js"
import { importCompose } from "../../src/import/compose.js"
import { importFile } from "../../src/import/index.js"
import { renderToml } from "../../src/import/model.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "../export/fixture.js"
import { manifestOf, validateCompose } from "../export/validate.js"
import { daemon, loadImported, ok } from "./helpers.js"

const sandbox = useSandbox()

describe("env files through import", () => {
  it("a Procfile with a .env beside it: every process gets env_file, relative to the written file", async () => {
    const sb = sandbox()
    sb.write({ "app/Procfile": "web: node web.js\nworker: node worker.js\n", "app/.env": "A=1\n" })
    const imported = await Effect.runPromise(
      importFile("procfile", sb.path("app/Procfile"), sb.path("app/.config")),
    )
    expect(imported.daemons.map((d) => d.keys)).toEqual([
      [
        ["run", "node web.js"],
        ["env_file", ".env"],
      ],
      [
        ["run", "node worker.js"],
        ["env_file", ".env"],
      ],
    ])
    const elsewhere = await Effect.runPromise(importFile("procfile", sb.path("app/Procfile"), sb.path("out")))
    expect(elsewhere.daemons[0]!.keys).toContainEqual(["env_file", "../app/.env"])
    fs.rmSync(sb.path("app/.env"))
    const without = await Effect.runPromise(importFile("procfile", sb.path("app/Procfile"), sb.path("app")))
    expect(without.daemons[0]!.keys).toEqual([["run", "node web.js"]])
  })

  it("process-compose env_file (top level and per process, compose's { path, required }) becomes env_file", async () => {
    const sb = sandbox()
    const imported = ok(
      importCompose(
        {
          env_file: "common.env",
          processes: {
            api: { command: "node api.js", env_file: [".env", { path: ".env.local", required: false }] },
            worker: { command: "node worker.js" },
            bad: { command: "x", env_file: [42] },
          },
        },
        "process-compose.yaml",
      ),
    )
    expect(imported.warnings).toEqual([
      { key: "processes.bad.env_file[0]", message: "expected a path or { path, required }: not imported" },
    ])
    expect(renderToml(imported, "pc")).toContain(
      'env_file = ["common.env", ".env", { path = ".env.local", optional = true }]',
    )
    sb.write({ "proj/common.env": "A=1\n", "proj/.env": "B=2\n" })
    const config = await loadImported(sb, imported)
    expect(daemon(config, "api").env_file).toEqual([
      { path: sb.path("proj/common.env"), optional: false },
      { path: sb.path("proj/.env"), optional: false },
      { path: sb.path("proj/.env.local"), optional: true },
    ])
    expect(daemon(config, "worker").env_file).toEqual([{ path: sb.path("proj/common.env"), optional: false }])
  })
})

describe("env files through export", () => {
  const project = `env_file = "common.env"
[env]
SHARED = "1"
LEVEL = "shared"
[daemons.api]
run = "node api.js"
env_file = [{ path = ".env.local", optional = true }]
env = { LEVEL = "own" }
`

  it("compose: env_file (an optional one left out, with a warning) and the top-level [env] under environment", async () => {
    const sb = sandbox()
    sb.write({ "shop/common.env": "A=1\n" })
    const { files, warnings } = exportCompose(await loadShop(sb, project))
    const doc = parse(fileNamed(files, "compose.yaml")) as {
      services: Record<string, { env_file?: unknown; environment?: unknown }>
    }
    expect(doc.services["shop--api"]!.env_file).toEqual([sb.path("shop/common.env")])
    expect(warnings).toContain(
      `shop/api: env_file (${sb.path("shop/.env.local")}) is optional: left out, as compose fails on a missing env_file; add it as { path: ..., required: false } for Compose 2.24 and later`,
    )
    expect(doc.services["shop--api"]!.environment).toEqual({ SHARED: "1", LEVEL: "own" })
    expect(validateCompose(doc), JSON.stringify(validateCompose.errors)).toBe(true)
  })

  it("systemd: EnvironmentFile= (- for optional) with a warning; kubernetes: their variables in the ConfigMap", async () => {
    const sb = sandbox()
    sb.write({ "shop/common.env": "A=1\n" })
    const config = await loadShop(sb, project)
    const systemd = exportSystemd(config)
    const unit = systemd.files.find((f) => f.path.endsWith(".service"))!.content
    expect(unit).toContain(`EnvironmentFile=${sb.path("shop/common.env")}\n`)
    expect(unit).toContain(`EnvironmentFile=-${sb.path("shop/.env.local")}\n`)
    expect(
      systemd.warnings.some((w) => w.startsWith("shop/api: env_file is exported as EnvironmentFile=")),
    ).toBe(true)
    const k8s = exportKubernetes(config)
    // layered as the supervisor does: the top-level file, [env], its own (missing, optional) file, env
    expect(manifestOf(fileNamed(k8s.files, "shop--api.yaml"), "ConfigMap").data).toEqual({
      A: "1",
      SHARED: "1",
      LEVEL: "own",
    })
    expect(k8s.warnings.filter((w) => w.includes("env_file"))).toEqual([])
  })
})
