/**
 * Import then export through the built CLI: a process-compose file imported into a
 * supervisor.toml and exported again as a compose file keeps each process's command, environment,
 * restart policy, readiness (as a healthcheck) and the dependency's condition; a Procfile imported
 * and exported as systemd units keeps each command.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { type Obj, validateCompose } from "../export/validate.js"
import { makeSandbox, runCli, type Sandbox } from "./harness.js"

let sb: Sandbox
let project: string
beforeEach(() => {
  sb = makeSandbox()
  project = join(sb.root, "work", "shop")
})
afterEach(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: project, env: sb.env })

const PROCESS_COMPOSE = `version: "0.5"
processes:
  db:
    command: "sleep 300"
    readiness_probe:
      exec:
        command: "test -e /tmp"
  api:
    command: "node server.js --port 3000"
    environment:
      - "PORT=3000"
      - "MODE=dev"
    depends_on:
      db:
        condition: process_healthy
    availability:
      restart: on_failure
      max_restarts: 3
`

describe("import then export (e2e)", () => {
  it("process-compose -> supervisor.toml -> compose keeps commands, environment, retries, readiness and conditions", () => {
    sb.write({ "work/shop/process-compose.yaml": PROCESS_COMPOSE })
    const imported = cli("import", "compose", "process-compose.yaml")
    expect(imported.status, imported.stderr).toBe(0)
    expect(readFileSync(join(project, "supervisor.toml"), "utf8")).toContain("[daemons.api]")
    const exported = cli("export", "compose")
    expect(exported.status, exported.stderr).toBe(0)
    const doc = parse(exported.stdout) as { services: Record<string, Obj> }
    expect(validateCompose(doc)).toBe(true)
    expect(Object.keys(doc.services).sort()).toEqual(["shop--api", "shop--db"])
    const api = doc.services["shop--api"]!
    const db = doc.services["shop--db"]!
    expect(api.command).toEqual(["sh", "-c", "node server.js --port 3000"])
    expect(db.command).toEqual(["sh", "-c", "sleep 300"])
    expect(api.environment).toEqual({ PORT: "3000", MODE: "dev" })
    expect(api.restart).toBe("on-failure:3")
    expect(api.depends_on).toEqual({ "shop--db": { condition: "service_healthy" } })
    expect((db.healthcheck as Obj).test).toEqual(["CMD-SHELL", "test -e /tmp"])
  })

  it("Procfile -> supervisor.toml -> systemd units keep each command", () => {
    sb.write({ "work/shop/Procfile": "web: node web.js\nworker: node worker.js --queue jobs\n" })
    const imported = cli("import", "procfile", "Procfile")
    expect(imported.status, imported.stderr).toBe(0)
    const exported = cli("export", "systemd", "--json")
    expect(exported.status, exported.stderr).toBe(0)
    const files = (JSON.parse(exported.stdout) as { files: Array<{ path: string; content: string }> }).files
    expect(files.map((f) => f.path).sort()).toEqual(["shop--web.service", "shop--worker.service"])
    const exec = (name: string) =>
      files.find((f) => f.path === `${name}.service`)!.content.match(/^ExecStart=(.*)$/m)?.[1]
    expect(exec("shop--web")).toContain("node web.js")
    expect(exec("shop--worker")).toContain("node worker.js --queue jobs")
  })
})
