import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { exportCompose } from "../../src/export/compose.js"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import { exportNomad } from "../../src/export/nomad.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop, nomadGroups } from "./fixture.js"
import {
  at,
  type Job,
  jobProblems,
  manifestOf,
  manifestProblems,
  type Obj,
  validateCompose,
} from "./validate.js"

/** One daemon per kind of health check. */
const HEALTHY = `[daemons.api]
run = "node server.js"
port = 3000
ready_http = "http://127.0.0.1:3000/ready"

[daemons.api.health]
http = "http://127.0.0.1:{{ daemons.api.port }}/health"
interval = "15s"
timeout = "3s"
failures = 4
start_period = "20s"

[daemons.db]
run = "exec postgres"
port = 5432
health = { port = 5432, interval = "5s" }

[daemons.queue]
run = "./queue"
health = { cmd = "./queue --ping", interval = "30s", timeout = "10s" }
`

describe("export of health checks", () => {
  const sandbox = useSandbox()

  it("kubernetes: a livenessProbe with the check's timing", async () => {
    const { files } = exportKubernetes(await loadShop(sandbox(), HEALTHY))
    const container = (name: string) => {
      const m = manifestOf(fileNamed(files, `shop--${name}.yaml`), "Deployment")
      expect(manifestProblems(m)).toEqual([])
      return (at(m, "spec.template.spec.containers") as Array<Obj>)[0]!
    }
    expect(container("api").livenessProbe).toEqual({
      httpGet: { path: "/health", port: 3000, scheme: "HTTP" },
      periodSeconds: 15,
      timeoutSeconds: 3,
      failureThreshold: 4,
      initialDelaySeconds: 20,
    })
    expect(container("api").readinessProbe).toEqual({
      httpGet: { path: "/ready", port: 3000, scheme: "HTTP" },
      periodSeconds: 1,
    })
    expect(container("db").livenessProbe).toEqual({
      tcpSocket: { port: 5432 },
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 3,
    })
    expect(container("queue").livenessProbe).toMatchObject({
      exec: { command: ["sh", "-c", "./queue --ping"] },
      periodSeconds: 30,
      timeoutSeconds: 10,
    })
  })

  it("compose: the healthcheck is the health check, with a warning that Compose does not restart", async () => {
    const { files, warnings } = exportCompose(await loadShop(sandbox(), HEALTHY))
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Obj> }
    expect(validateCompose(doc), JSON.stringify(validateCompose.errors)).toBe(true)
    expect(doc.services["shop--api"]!.healthcheck).toEqual({
      test: [
        "CMD-SHELL",
        "curl -fsS -o /dev/null 'http://127.0.0.1:3000/health' || wget -q -O /dev/null 'http://127.0.0.1:3000/health'",
      ],
      interval: "15s",
      timeout: "3s",
      retries: 4,
      start_period: "20s",
    })
    expect(doc.services["shop--db"]!.healthcheck).toMatchObject({
      test: ["CMD-SHELL", "nc -z 127.0.0.1 5432"],
    })
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/api: ready_* is left out: a service has one healthcheck, and health is it",
        "shop/api: health marks the container unhealthy; Compose itself does not restart it (an autoheal container or Swarm does)",
      ]),
    )
  })

  it("nomad: a service check that restarts the task after `failures`", async () => {
    const { files, warnings } = exportNomad(await loadShop(sandbox(), HEALTHY))
    expect(jobProblems(JSON.parse(fileNamed(files, "shop.nomad.json")) as Job)).toEqual([])
    const groups = nomadGroups(files)
    const group = (name: string) => groups.get(`shop--${name}`)!.group as Obj
    expect(group("api").Services).toEqual([
      {
        Name: "shop--api",
        Provider: "nomad",
        PortLabel: "port3000",
        Checks: [
          {
            Name: "ready",
            Type: "http",
            Protocol: "http",
            Path: "/ready",
            PortLabel: "port3000",
            Interval: 1_000_000_000,
            Timeout: 1_000_000_000,
          },
          {
            Name: "health",
            Type: "http",
            Protocol: "http",
            Path: "/health",
            PortLabel: "port3000",
            Interval: 15_000_000_000,
            Timeout: 3_000_000_000,
            CheckRestart: { Limit: 4, Grace: 20_000_000_000 },
          },
        ],
      },
    ])
    expect(at(group("db"), "Services")).toMatchObject([{ Checks: [{ Type: "tcp", PortLabel: "port5432" }] }])
    expect(at(group("queue"), "Services")).toMatchObject([
      {
        Provider: "consul",
        Checks: [{ Type: "script", Command: "/bin/sh", Args: ["-c", "./queue --ping"] }],
      },
    ])
    expect(warnings).toContain(
      "shop/queue: health.cmd is a script check: Nomad runs those only for services registered in Consul",
    )
  })
})
