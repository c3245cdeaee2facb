import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "./fixture.js"
import { at, manifestProblems, type Obj } from "./validate.js"

describe("export kubernetes", () => {
  const sandbox = useSandbox()

  it("a Deployment per daemon with readiness probes, a CronJob for a cron daemon, limits", async () => {
    const { files, warnings } = exportKubernetes(await loadShop(sandbox()))
    expect(files.map((f) => f.path)).toEqual([
      "shop--api.yaml",
      "shop--db.yaml",
      "shop--migrate.yaml",
      "shop--report.yaml",
    ])
    const api = parse(fileNamed(files, "shop--api.yaml")) as Obj
    expect(api.kind).toBe("Deployment")
    const apiContainer = at(api, "spec.template.spec.containers") as Array<Obj>
    expect(apiContainer[0]!.readinessProbe).toMatchObject({ httpGet: { path: "/health", port: 3000 } })
    expect(apiContainer[0]!.ports).toEqual([{ containerPort: 3000 }])
    expect(at(api, "spec.template.spec.terminationGracePeriodSeconds")).toBe(5)
    const db = (
      at(parse(fileNamed(files, "shop--db.yaml")), "spec.template.spec.containers") as Array<Obj>
    )[0]!
    expect(db.readinessProbe).toMatchObject({ tcpSocket: { port: 5432 } })
    expect(db.resources).toEqual({ limits: { memory: "536870912", cpu: "500m" } })
    const report = parse(fileNamed(files, "shop--report.yaml")) as Obj
    expect(report.kind).toBe("CronJob")
    expect(at(report, "spec.schedule")).toBe("30 2 * * 1-5")
    expect(at(report, "spec.concurrencyPolicy")).toBe("Forbid")
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/api: depends (shop/db, shop/migrate) has no Kubernetes equivalent: pods start in any order",
        "shop/api: stop_signal (SIGINT) is not mapped: Kubernetes sends SIGTERM",
        "shop/db: retry (3) is not mapped: a Deployment always restarts its pod",
      ]),
    )
  })

  it("every manifest has the required fields of its kind", async () => {
    const { files } = exportKubernetes(await loadShop(sandbox()))
    for (const f of files) expect(manifestProblems(parse(f.content) as Obj), f.path).toEqual([])
  })

  it("the structural check is real: a Deployment without a selector fails it", async () => {
    const { files } = exportKubernetes(await loadShop(sandbox()))
    const api = parse(fileNamed(files, "shop--api.yaml")) as { spec: Obj }
    delete api.spec.selector
    expect(manifestProblems(api as unknown as Obj)).toContain("spec.selector is required")
  })

  it("a cron schedule with seconds becomes a Deployment, with a warning", async () => {
    const config = await loadShop(sandbox(), '[daemons.tick]\nrun = "x"\ncron = "*/10 * * * * *"\n')
    const { files, warnings } = exportKubernetes(config)
    expect((parse(fileNamed(files, "shop--tick.yaml")) as Obj).kind).toBe("Deployment")
    expect(warnings).toContain(
      "shop/tick: cron (*/10 * * * * *) fires on seconds (*/10), and a CronJob schedule has minutes at the finest: exported as a Deployment",
    )
  })
})
