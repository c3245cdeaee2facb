import { describe, expect, it } from "vitest"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import type { Sandbox } from "../config/helpers.js"
import { loadErr, useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop, RICH, RICH_FILES } from "./fixture.js"
import { at, manifestOf, manifestProblems, manifests, type Obj } from "./validate.js"

const loadRich = (sb: Sandbox) => {
  sb.write(RICH_FILES)
  return loadShop(sb, RICH)
}
const containers = (m: Obj, path = "spec.template.spec"): Array<Obj> =>
  at(m, `${path}.containers`) as Array<Obj>
const initContainers = (m: Obj, path = "spec.template.spec"): Array<Obj> =>
  (at(m, `${path}.initContainers`) ?? []) as Array<Obj>

describe("export kubernetes", () => {
  const sandbox = useSandbox()

  it("every manifest of a rich project is valid by the Kubernetes OpenAPI schemas", async () => {
    const { files } = exportKubernetes(await loadRich(sandbox()), { image: "registry.example/shop:1.2" })
    expect(files.map((f) => f.path)).toEqual([
      "shop--api.yaml",
      "shop--cache.yaml",
      "shop--db.yaml",
      "shop--migrate.yaml",
      "shop--report.yaml",
      "shop--web.yaml",
      "supervisor-export-wait.yaml",
    ])
    const kinds: Array<string> = []
    for (const f of files)
      for (const m of manifests(f.content)) {
        kinds.push(`${f.path} ${String(m.kind)}`)
        expect(manifestProblems(m), `${f.path} ${String(m.kind)}`).toEqual([])
      }
    expect(kinds).toEqual([
      "shop--api.yaml Deployment",
      "shop--api.yaml Service",
      "shop--api.yaml ConfigMap",
      "shop--api.yaml Secret",
      "shop--cache.yaml Deployment",
      "shop--cache.yaml ConfigMap",
      "shop--db.yaml Deployment",
      "shop--db.yaml Service",
      "shop--db.yaml ConfigMap",
      "shop--migrate.yaml Job",
      "shop--migrate.yaml ConfigMap",
      "shop--report.yaml CronJob",
      "shop--report.yaml ConfigMap",
      "shop--web.yaml Deployment",
      "shop--web.yaml Service",
      "shop--web.yaml ConfigMap",
      "supervisor-export-wait.yaml ServiceAccount",
      "supervisor-export-wait.yaml Role",
      "supervisor-export-wait.yaml RoleBinding",
    ])
  })

  it("the validator refuses a manifest with a deliberate error", async () => {
    const { files } = exportKubernetes(await loadRich(sandbox()))
    const api = manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment") as { spec: Obj }
    expect(manifestProblems(api as Obj)).toEqual([])
    const noSelector = structuredClone(api)
    delete noSelector.spec.selector
    expect(manifestProblems(noSelector as Obj)).toEqual(["data/spec must have required property selector"])
    const badPort = structuredClone(api) as Obj
    ;(containers(badPort)[0]!.ports as Array<Obj>)[0]!.containerPort = "3000"
    expect(manifestProblems(badPort)).toEqual([
      "data/spec/template/spec/containers/0/ports/0/containerPort must be integer",
    ])
    const badLimit = structuredClone(api) as Obj
    containers(badLimit)[0]!.resources = { limits: { memory: "a lot" } }
    expect(manifestProblems(badLimit).join()).toContain('must match format "quantity"')
    const job = manifestOf(fileNamed(files, "shop--migrate.yaml"), "Job")
    ;(at(job, "spec.template.spec") as Obj).restartPolicy = "Always"
    expect(manifestProblems(job)).toEqual([])
    ;(at(job, "spec.template.spec") as Obj).restartPolicy = "Sometimes"
    expect(manifestProblems(job)).toEqual([
      "data/spec/template/spec/restartPolicy must be equal to one of the allowed values",
    ])
  })

  it("a Service per daemon with ports; other daemons reach it by its name, not the loopback", async () => {
    const { files } = exportKubernetes(await loadRich(sandbox()))
    const db = manifestOf(fileNamed(files, "shop--db.yaml"), "Service")
    expect(db).toMatchObject({
      metadata: { name: "shop--db" },
      spec: {
        selector: { "app.kubernetes.io/name": "shop--db" },
        ports: [{ name: "port-5432", port: 5432, targetPort: 5432, protocol: "TCP" }],
      },
    })
    const api = manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment")
    // its own port stays its own; the database's is the Service's name
    expect(containers(api)[0]!.command).toEqual(["sh", "-c", "node server.js --db=shop--db:5432 --port 3000"])
    expect(at(api, "spec.replicas")).toBe(2)
    const config = manifestOf(fileNamed(files, "shop--api.yaml"), "ConfigMap")
    expect(config.data).toEqual({
      REGION: "eu",
      LOG_LEVEL: "info",
      DATABASE_URL: "postgres://app@shop--db:5432/app",
      DB: "shop--db:5432",
      PCT: "100%",
    })
    const web = manifestOf(fileNamed(files, "shop--web.yaml"), "ConfigMap")
    expect(web.data).toMatchObject({ API_URL: "http://shop--api:3000/v1" })
    const migrate = manifestOf(fileNamed(files, "shop--migrate.yaml"), "Job")
    expect(containers(migrate)[0]!.command).toEqual(["sh", "-c", "./migrate.sh --db shop--db:5432"])
  })

  it("secrets from env and env files are a Secret of placeholders: their values are written nowhere", async () => {
    const { files, warnings } = exportKubernetes(await loadRich(sandbox()))
    const content = fileNamed(files, "shop--api.yaml")
    expect(manifestOf(content, "Secret")).toMatchObject({
      metadata: { name: "shop--api-secret" },
      type: "Opaque",
      stringData: { DB_PASSWORD: "***", API_TOKEN: "***" },
    })
    for (const f of files) {
      expect(f.content).not.toContain("hunter2")
      expect(f.content).not.toContain("s3cret")
    }
    expect(containers(manifestOf(content, "Deployment"))[0]!.envFrom).toEqual([
      { configMapRef: { name: "shop--api-env" } },
      { secretRef: { name: "shop--api-secret" } },
    ])
    expect(warnings).toContain(
      "shop/api: env (DB_PASSWORD, API_TOKEN) are secrets by general.secret_patterns: their Secret holds the placeholder ***; set the values in the cluster",
    )
  })

  it("depends: init containers wait for a Service, a Deployment's Available, a Job's Complete", async () => {
    const { files, warnings } = exportKubernetes(await loadRich(sandbox()))
    const api = manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment")
    expect(initContainers(api)).toEqual([
      {
        name: "wait-shop--db",
        image: "busybox:1.36",
        command: [
          "sh",
          "-c",
          "until nc -z -w 2 shop--db 5432; do echo waiting for shop--db:5432; sleep 1; done",
        ],
      },
      {
        name: "wait-shop--migrate",
        image: "registry.k8s.io/kubectl:v1.33.0",
        command: ["kubectl", "wait", "--for=condition=Complete", "job/shop--migrate", "--timeout=-1s"],
      },
      {
        name: "wait-shop--cache",
        image: "registry.k8s.io/kubectl:v1.33.0",
        command: ["kubectl", "wait", "--for=condition=Available", "deployment/shop--cache", "--timeout=-1s"],
      },
    ])
    expect(at(api, "spec.template.spec.serviceAccountName")).toBe("supervisor-export-wait")
    const web = manifestOf(fileNamed(files, "shop--web.yaml"), "Deployment")
    expect(initContainers(web).map((c) => c.name)).toEqual(["wait-shop--api"])
    expect(at(web, "spec.template.spec.serviceAccountName")).toBeUndefined()
    const migrate = manifestOf(fileNamed(files, "shop--migrate.yaml"), "Job")
    expect(at(migrate, "spec.backoffLimit")).toBe(2)
    expect(at(migrate, "spec.template.spec.restartPolicy")).toBe("Never")
    expect(initContainers(migrate).map((c) => c.name)).toEqual(["wait-shop--db"])
    const report = manifestOf(fileNamed(files, "shop--report.yaml"), "CronJob")
    expect(initContainers(report, "spec.jobTemplate.spec.template.spec").map((c) => c.name)).toEqual([
      "wait-shop--db",
    ])
    expect(manifestOf(fileNamed(files, "supervisor-export-wait.yaml"), "Role").rules).toEqual([
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch"] },
      { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get", "list", "watch"] },
    ])
    expect(warnings).toContain(
      "shop/api: depends (shop/cache, condition started) waits until it is ready: a pod cannot tell started from ready",
    )
    expect(warnings.some((w) => w.includes("has no Kubernetes equivalent"))).toBe(false)
  })

  it("readiness, startup and liveness probes; limits and requests; the image given", async () => {
    const { files, warnings } = exportKubernetes(await loadRich(sandbox()), { image: "shop:1" })
    const api = containers(manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment"))[0]!
    expect(api.image).toBe("shop:1")
    const ready = { httpGet: { path: "/ready", port: 3000, scheme: "HTTP" } }
    expect(api.readinessProbe).toEqual({ ...ready, periodSeconds: 1 })
    expect(api.startupProbe).toEqual({ ...ready, periodSeconds: 1, failureThreshold: 20 })
    expect(api.livenessProbe).toMatchObject({
      httpGet: { path: "/health", port: 3000 },
      periodSeconds: 15,
      failureThreshold: 4,
    })
    expect(api.resources).toEqual({ limits: { memory: "268435456" }, requests: { memory: "268435456" } })
    const db = containers(manifestOf(fileNamed(files, "shop--db.yaml"), "Deployment"))[0]!
    expect(db.startupProbe).toEqual({ tcpSocket: { port: 5432 }, periodSeconds: 1, failureThreshold: 30 })
    expect(db.livenessProbe).toMatchObject({ tcpSocket: { port: 5432 }, periodSeconds: 10 })
    expect(db.resources).toEqual({
      limits: { memory: "536870912", cpu: "500m" },
      requests: { memory: "536870912", cpu: "500m" },
    })
    const cache = containers(manifestOf(fileNamed(files, "shop--cache.yaml"), "Deployment"))[0]!
    expect(cache.readinessProbe).toEqual({
      exec: { command: ["sh", "-c", "redis-cli ping"] },
      periodSeconds: 1,
    })
    expect(cache.startupProbe).toBeUndefined()
    expect(warnings.some((w) => w.startsWith("kubernetes: every container runs image"))).toBe(false)
  })

  it("without an image: the placeholder image, with a warning", async () => {
    const { files, warnings } = exportKubernetes(await loadShop(sandbox()))
    const api = containers(manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment"))[0]!
    expect(api.image).toBe("debian:stable-slim")
    expect(warnings).toContain(
      "kubernetes: every container runs image debian:stable-slim in the daemon's directory; set the image that holds the daemons' programs and files with --image or export.image",
    )
  })

  it("a daemon's export.image wins over --image; the others without one are named in the warning", async () => {
    const project = `[daemons.db]
run = "postgres"
export = { image = "postgres:17" }

[daemons.api]
run = "node server.js"
[daemons.api.export]
image = "registry.example/api:3"

[daemons.worker]
run = "node worker.js"
`
    const image = (files: ReadonlyArray<{ path: string; content: string }>, name: string) =>
      containers(manifestOf(fileNamed(files, `shop--${name}.yaml`), "Deployment"))[0]!.image
    const config = await loadShop(sandbox(), project)
    const given = exportKubernetes(config, { image: "shop:1" })
    expect(["db", "api", "worker"].map((n) => image(given.files, n))).toEqual([
      "postgres:17",
      "registry.example/api:3",
      "shop:1",
    ])
    expect(given.warnings.filter((w) => w.startsWith("kubernetes:"))).toEqual([])
    const { files, warnings } = exportKubernetes(config)
    expect(image(files, "worker")).toBe("debian:stable-slim")
    expect(warnings).toContain(
      "kubernetes: the containers of shop/worker run image debian:stable-slim in the daemon's directory; set the image that holds the daemons' programs and files with --image or export.image",
    )
  })

  it("an empty export.image is a configuration error naming the key", async () => {
    const sb = sandbox()
    sb.write({ "shop/supervisor.toml": '[daemons.db]\nrun = "postgres"\nexport = { image = " " }\n' })
    const err = await loadErr(sb, { cwd: "shop" })
    expect(JSON.stringify(err.problems)).toContain("daemons.db.export.image")
    expect(JSON.stringify(err.problems)).toContain("must not be empty")
  })

  it("the shop project: a CronJob for a cron daemon, warnings for what does not map", async () => {
    const { files, warnings } = exportKubernetes(await loadShop(sandbox()))
    for (const f of files)
      for (const m of manifests(f.content)) expect(manifestProblems(m), f.path).toEqual([])
    const api = manifestOf(fileNamed(files, "shop--api.yaml"), "Deployment")
    expect(at(api, "spec.template.spec.terminationGracePeriodSeconds")).toBe(5)
    const report = manifestOf(fileNamed(files, "shop--report.yaml"), "CronJob")
    expect(at(report, "spec.schedule")).toBe("30 2 * * 1-5")
    expect(at(report, "spec.concurrencyPolicy")).toBe("Forbid")
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/api: stop_signal (SIGINT) is not mapped: Kubernetes sends SIGTERM",
        "shop/db: retry (3) is not mapped: a Deployment always restarts its pod",
      ]),
    )
  })

  it("a daemon whose Service cannot reach it (it binds the loopback) is warned about", async () => {
    const config = await loadShop(
      sandbox(),
      '[daemons.web]\nrun = "gunicorn -b 127.0.0.1:8000 app:app"\nport = 8000\n',
    )
    const { warnings } = exportKubernetes(config)
    expect(warnings).toContain(
      "shop/web: run binds the loopback address (-b 127.0.0.1:8000): its Service cannot reach it; bind 0.0.0.0 in the container",
    )
  })

  it("a cron schedule with seconds becomes a Deployment, with a warning", async () => {
    const config = await loadShop(sandbox(), '[daemons.tick]\nrun = "x"\ncron = "*/10 * * * * *"\n')
    const { files, warnings } = exportKubernetes(config)
    expect(manifests(fileNamed(files, "shop--tick.yaml")).map((m) => m.kind)).toEqual(["Deployment"])
    expect(warnings).toContain(
      "shop/tick: cron (*/10 * * * * *) fires on seconds (*/10), and a CronJob schedule has minutes at the finest: exported as a Deployment",
    )
  })
})
