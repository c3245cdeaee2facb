import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { importCompose } from "../../src/import/compose.js"
import { importFile } from "../../src/import/index.js"
import { ImportFailed } from "../../src/import/model.js"
import { useSandbox } from "../config/helpers.js"
import { daemon, loadImported, ok, warnedKeys } from "./helpers.js"

const sandbox = useSandbox()

const YAML = `version: "0.5"
environment:
  - "LOG_LEVEL=info"
processes:
  db:
    command: exec postgres -D ./data
    readiness_probe:
      exec:
        command: pg_isready -h localhost
    availability:
      restart: on_failure
      max_restarts: 3
  migrate:
    command: ./migrate
    depends_on:
      db:
        condition: process_healthy
  api:
    command: ./api --port 8080
    working_dir: backend
    environment:
      - "PORT=8080"
      - "LOG_LEVEL=debug"
    depends_on:
      migrate:
        condition: process_completed_successfully
      db:
        condition: process_started
    readiness_probe:
      http_get:
        host: 127.0.0.1
        port: 8080
        path: /health
    availability:
      restart: always
    shutdown:
      signal: 2
      timeout_seconds: 10
  vite:
    command: npx vite
    ready_log_line: "ready in"
    is_tty: true
`

describe("import compose (process-compose)", () => {
  it("maps commands, dependencies with conditions, probes, restarts and environment", async () => {
    const sb = sandbox()
    sb.write({ "proj/process-compose.yaml": YAML })
    const imported = await Effect.runPromise(importFile("compose", sb.path("proj/process-compose.yaml")))
    // restart: always is restart = "always": nothing to warn about
    expect(warnedKeys(imported)).toEqual([])
    const config = await loadImported(sb, imported)
    const db = daemon(config, "db")
    expect(db.run).toBe("exec postgres -D ./data")
    expect(db.retry).toBe(3)
    expect(db.env).toEqual({ LOG_LEVEL: "info" })
    expect(db.ready_cmd).toMatchObject({ run: "pg_isready -h localhost" })
    expect(daemon(config, "migrate").depends).toEqual(["proj/db"])
    const api = daemon(config, "api")
    expect(api.dir).toBe(sb.path("proj/backend"))
    expect(api.env).toEqual({ LOG_LEVEL: "debug", PORT: "8080" })
    expect(api.restart).toBe("always")
    expect(api.retry).toBe(0)
    expect(api.ready_http).toMatchObject({ url: "http://127.0.0.1:8080/health" })
    expect(api.depends).toEqual(["proj/migrate", "proj/db"])
    expect(api.depends_conditions).toEqual({ "proj/migrate": "completed", "proj/db": "started" })
    expect(api.stop_signal).toMatchObject({ signal: "SIGINT" })
    const vite = daemon(config, "vite")
    expect(vite.ready_output).toMatchObject({ pattern: "ready in" })
    expect(vite.pty).toBe(true)
  })

  it("warns about probe timing, liveness, unknown dependencies and top-level keys; replicas is instances", () => {
    const imported = ok(
      importCompose(
        {
          log_location: "/tmp/pc.log",
          processes: {
            web: {
              command: "./web",
              replicas: 2,
              readiness_probe: { http_get: { port: 3000 }, period_seconds: 5 },
              liveness_probe: { exec: { command: "true" }, success_threshold: 2 },
              depends_on: { ghost: { condition: "process_healthy" } },
              availability: { restart: "exit_on_failure", backoff_seconds: 2 },
            },
          },
        },
        "/p/process-compose.yaml",
      ),
    )
    expect(warnedKeys(imported).sort()).toEqual(
      [
        "log_location",
        "processes.web.readiness_probe",
        "processes.web.liveness_probe.success_threshold",
        "processes.web.depends_on.ghost",
        "processes.web.availability.backoff_seconds",
        "processes.web.availability.restart",
      ].sort(),
    )
    expect(imported.daemons[0]!.keys).toContainEqual(["instances", 2])
  })

  it('restart: always with max_restarts is restart = "always", and the limit a warning', () => {
    const imported = ok(
      importCompose(
        { processes: { a: { command: "./a", availability: { restart: "always", max_restarts: 4 } } } },
        "f",
      ),
    )
    expect(warnedKeys(imported)).toEqual(["processes.a.availability.max_restarts"])
    expect(imported.daemons[0]!.keys).toEqual(expect.arrayContaining([["restart", "always"]]))
  })

  it("imports a liveness probe as the health check, with its timing", async () => {
    const imported = ok(
      importCompose(
        {
          processes: {
            a: {
              command: "./a",
              liveness_probe: {
                http_get: { host: "127.0.0.1", port: 8080, path: "/live" },
                period_seconds: 5,
                timeout_seconds: 2,
                failure_threshold: 4,
                initial_delay_seconds: 30,
              },
            },
            b: {
              command: "./b",
              liveness_probe: { exec: { command: "./alive" }, period_seconds: 1, timeout_seconds: 3 },
            },
          },
        },
        "f",
      ),
    )
    expect(imported.daemons[0]!.keys).toContainEqual([
      "health",
      { http: "http://127.0.0.1:8080/live", interval: "5s", timeout: "2s", failures: 4, start_period: "30s" },
    ])
    expect(warnedKeys(imported)).toEqual(["processes.b.liveness_probe.timeout_seconds"])
    const config = await loadImported(sandbox(), imported)
    expect(daemon(config, "a").health?.http?.url).toBe("http://127.0.0.1:8080/live")
    expect(daemon(config, "b").health?.cmd).toBe("./alive")
    expect(daemon(config, "a").ready_cmd).toBeUndefined()
  })

  it("fails with the file, the key and the fix for bad input", async () => {
    const missing = importCompose({ processes: { a: { working_dir: "x" } } }, "/p/pc.yaml")
    expect(missing).toBeInstanceOf(ImportFailed)
    expect((missing as ImportFailed).message).toContain("/p/pc.yaml: processes.a.command: missing")
    const sb = sandbox()
    sb.write({ "bad.yaml": "processes: [\n" })
    const r = await Effect.runPromise(Effect.either(importFile("compose", sb.path("bad.yaml"))))
    expect(Either.isLeft(r) && r.left.message).toMatch(
      /bad\.yaml: not valid YAML: .* at line 2, column 1\n {2}hint:/,
    )
  })
})
