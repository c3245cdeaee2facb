import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { exportCompose } from "../../src/export/compose.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "./fixture.js"
import { validateCompose } from "./validate.js"

type Service = Record<string, unknown> & { depends_on?: Record<string, { condition: string }> }

describe("export compose", () => {
  const sandbox = useSandbox()

  it("one compose.yaml: depends_on conditions from depends and readiness, healthchecks, limits, restart", async () => {
    const { files, warnings } = exportCompose(await loadShop(sandbox()))
    expect(files.map((f) => f.path)).toEqual(["compose.yaml"])
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Service> }
    const api = doc.services["shop--api"]!
    expect(api.depends_on).toEqual({
      "shop--db": { condition: "service_healthy" },
      "shop--migrate": { condition: "service_completed_successfully" },
    })
    expect(api.command).toEqual(["sh", "-c", "node server.js --db=$$DB_URL"])
    // db's port on the loopback is db's service by name on the compose network
    expect(api.environment).toMatchObject({ DB: "shop--db:5432" })
    expect(api.restart).toBe("on-failure")
    expect(api.stop_signal).toBe("SIGINT")
    expect(api.stop_grace_period).toBe("5s")
    expect((api.healthcheck as { test: Array<string> }).test[1]).toContain("http://127.0.0.1:3000/health")
    const db = doc.services["shop--db"]!
    expect(db.healthcheck).toMatchObject({ test: ["CMD-SHELL", "nc -z 127.0.0.1 5432"] })
    expect(db.restart).toBe("on-failure:3")
    expect(db.mem_limit).toBe(536870912)
    expect(db.cpus).toBe(0.5)
    // `no` would be a boolean to a YAML 1.1 reader: it is quoted
    expect(fileNamed(files, "compose.yaml")).toContain('restart: "no"')
    // migrate waits for db's healthcheck; report has no dependency
    expect(doc.services["shop--migrate"]!.depends_on).toEqual({
      "shop--db": { condition: "service_healthy" },
    })
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/report: cron (0 30 2 * * 1-5) has no compose equivalent: the service runs once at up",
        "shop/api: watch (restart on file change) has no compose equivalent",
      ]),
    )
  })

  it("a dependency without a readiness check is waited for as started, with a warning", async () => {
    const config = await loadShop(
      sandbox(),
      '[daemons.a]\nrun = "a"\n[daemons.b]\nrun = "b"\ndepends = ["a"]\n',
    )
    const { files, warnings } = exportCompose(config)
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Service> }
    expect(doc.services["shop--b"]!.depends_on).toEqual({ "shop--a": { condition: "service_started" } })
    expect(warnings).toContain(
      "shop/b: depends (shop/a) waits for readiness, but the dependency has no healthcheck: service_started",
    )
  })

  it("warns about a daemon that binds the loopback address, naming the daemon and the key", async () => {
    const config = await loadShop(
      sandbox(),
      '[daemons.web]\nrun = "uvicorn app:app --host 127.0.0.1 --port {{ daemons.web.port }}"\nport = 8000\n' +
        '[daemons.cache]\nrun = "./cache"\nenv = { HOST = "localhost", DB_HOST = "localhost" }\n' +
        '[daemons.open]\nrun = "uvicorn app:app --host 0.0.0.0"\n',
    )
    const { warnings } = exportCompose(config)
    const loopback = warnings.filter((w) => w.includes("loopback"))
    expect(loopback).toEqual([
      "shop/cache: env.HOST binds the loopback address (HOST=localhost): in a container it cannot be reached through the published ports or by the other services; bind 0.0.0.0 in the container",
      "shop/web: run binds the loopback address (--host 127.0.0.1): in a container it cannot be reached through the published ports or by the other services; bind 0.0.0.0 in the container",
    ])
  })

  it("the file validates against the Compose Specification's JSON Schema", async () => {
    const { files } = exportCompose(await loadShop(sandbox()))
    const valid = validateCompose(parse(fileNamed(files, "compose.yaml")))
    expect(validateCompose.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it("the schema check is real: a service with an unknown key fails it", async () => {
    const { files } = exportCompose(await loadShop(sandbox()))
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Service> }
    doc.services["shop--db"]!.restart_policy = "always"
    expect(validateCompose(doc)).toBe(false)
  })

  it("another daemon's loopback address is its service name; a daemon's own port stays on its loopback", async () => {
    const { files } = exportCompose(
      await loadShop(
        sandbox(),
        `[daemons.db]
run = "db --port 5432"
port = 5432

[daemons.api]
run = "api --listen 127.0.0.1:{{ daemons.api.port }} --db http://localhost:{{ daemons.db.port }}/x"
port = 3000
env = { DB_URL = "postgres://u@127.0.0.1:{{ daemons.db.port }}/app", OTHER = "127.0.0.1:9999" }
depends = ["db"]
`,
      ),
    )
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Service> }
    expect(validateCompose(doc)).toBe(true)
    const api = doc.services["shop--api"]!
    expect(api.command).toEqual(["sh", "-c", "api --listen 127.0.0.1:3000 --db http://shop--db:5432/x"])
    expect(api.environment).toEqual({
      DB_URL: "postgres://u@shop--db:5432/app",
      OTHER: "127.0.0.1:9999",
      PORT: "3000",
    })
  })

  it("PORT and PORTn as at a start, export.env over them; the image from export.image, else --image", async () => {
    const config = await loadShop(
      sandbox(),
      `[daemons.api]
run = "exec node server.js"
port = [3000, 3001]
env = { PORT = "80", HOST = "127.0.0.1", MODE = "dev" }
export = { env = { HOST = "0.0.0.0", URL = "http://localhost:{{ daemons.api.port }}/" } }

[daemons.db]
run = "exec db"
export = { image = "postgres:17" }
`,
    )
    const placeholder = exportCompose(config)
    const plain = parse(fileNamed(placeholder.files, "compose.yaml")) as { services: Record<string, Service> }
    expect(plain.services["shop--api"]!.image).toBe("debian:stable-slim")
    expect(placeholder.warnings).toContain(
      "compose: the containers of shop/api run image debian:stable-slim with the daemon's directory mounted; set the image that holds the daemons' programs (and curl or wget, or nc, for the healthchecks) with --image or export.image",
    )
    const { files, warnings } = exportCompose(config, { image: "localhost/shop:dev" })
    expect(warnings.some((w) => w.includes("debian:stable-slim"))).toBe(false)
    const doc = parse(fileNamed(files, "compose.yaml")) as { services: Record<string, Service> }
    expect(validateCompose(doc)).toBe(true)
    expect(doc.services["shop--api"]!.image).toBe("localhost/shop:dev")
    expect(doc.services["shop--db"]!.image).toBe("postgres:17")
    expect(doc.services["shop--api"]!.environment).toEqual({
      PORT: "3000",
      PORT0: "3000",
      PORT1: "3001",
      HOST: "0.0.0.0",
      MODE: "dev",
      URL: "http://localhost:3000/",
    })
    // export.env's HOST is not a loopback bind: no warning about it
    expect(warnings.some((w) => w.includes("binds the loopback"))).toBe(false)
  })
})
