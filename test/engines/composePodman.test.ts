// The demo's compose export brought up by a real engine: Podman, driven by docker-compose through
// Podman's Docker-compatible API, on an image built here (docs/scale-out.md#a-real-engine-run).
// Opt-in: `npm run test:engines` (not part of `npm test`).
import { spawn } from "node:child_process"
import { cpSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { freePort, httpAnswer, makeSandbox, runCli, type Sandbox } from "../e2e/harness.js"
import {
  buildNodeImage,
  INSTALL,
  missingPrograms,
  type Podman,
  podman,
  scheduleHealthchecks,
  stateOf,
} from "./podman.js"

const DEMO = resolve(__dirname, "../../examples/demo")
const IMAGE = `localhost/supervisor-engines-demo:${process.pid}`
const PROJECT = `svengines${process.pid}`

/** docker-compose with Podman's API; resolves with its exit status and output. */
const compose = (p: Podman, file: string, args: ReadonlyArray<string>, timeoutMs: number) =>
  new Promise<{ status: number | null; output: string }>((resolvePromise) => {
    const child = spawn("docker-compose", ["-p", PROJECT, "-f", file, ...args], {
      env: p.env,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let output = ""
    const add = (d: Buffer) => {
      output += d.toString("utf8")
    }
    child.stdout.on("data", add)
    child.stderr.on("data", add)
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolvePromise({ status, output })
    })
  })

describe("the demo's compose export on Podman", () => {
  let sandbox: Sandbox
  let engine: Podman
  let composeFile: string
  let stopHealthchecks = () => {}
  const seconds = (from: number) => ((Date.now() - from) / 1000).toFixed(1)

  beforeAll(async () => {
    const missing = missingPrograms()
    if (missing.length > 0)
      throw new Error(`the engine run needs ${missing.join(", ")}: install them with \`${INSTALL}\``)
    sandbox = makeSandbox()
    engine = podman(sandbox.root)
    const built = Date.now()
    buildNodeImage(engine, sandbox.root, IMAGE)
    console.log(`engines: image ${IMAGE} built from this machine's node and busybox in ${seconds(built)} s`)
    await engine.serve()
  }, 300_000)

  afterAll(async () => {
    stopHealthchecks()
    if (composeFile !== undefined) await compose(engine, composeFile, ["down", "-t", "2"], 120_000)
    try {
      engine?.run(["rmi", "--force", IMAGE])
    } finally {
      engine?.close()
      sandbox?.cleanup()
    }
  }, 180_000)

  it("the API answers through its published port once its migration completed; the worker waits for its health", async () => {
    // the demo as a user has it, with a port free on this machine in place of 3000
    const port = await freePort()
    const demo = join(sandbox.root, "demo")
    cpSync(DEMO, demo, { recursive: true })
    const toml = join(demo, "supervisor.toml")
    writeFileSync(toml, readFileSync(toml, "utf8").replace("expect = [3000]", `expect = [${port}]`))

    const out = join(sandbox.root, "out")
    const exported = runCli(["export", "compose", "--image", IMAGE, "--out", out], {
      cwd: demo,
      env: sandbox.env,
    })
    expect(exported.status, exported.stderr).toBe(0)
    composeFile = join(out, "compose.yaml")
    const doc = parse(readFileSync(composeFile, "utf8")) as {
      services: Record<string, { image: string; environment?: Record<string, string> }>
    }
    expect(doc.services["demo--api"]!.image).toBe(IMAGE)
    expect(doc.services["demo--api"]!.environment).toEqual({ PORT: String(port), HOST: "0.0.0.0" })

    stopHealthchecks = scheduleHealthchecks(engine, PROJECT)
    const started = Date.now()
    const up = await compose(engine, composeFile, ["up", "-d"], 240_000)
    expect(up.status, up.output).toBe(0)
    const answer = await httpAnswer(`http://127.0.0.1:${port}/`)
    const took = seconds(started)
    expect(answer.status).toBe(200)
    expect(answer.body).toContain("hello from the demo api")
    console.log(`engines: docker-compose up -d on Podman until the API answered: ${took} s`)

    const name = (service: string) =>
      engine
        .run([
          "ps",
          "-a",
          "--filter",
          `label=com.docker.compose.project=${PROJECT}`,
          "--filter",
          `label=com.docker.compose.service=${service}`,
          "--format",
          "{{.Names}}",
        ])
        .trim()
    const migrate = stateOf(engine, name("demo--migrate"))
    const api = stateOf(engine, name("demo--api"))
    const worker = stateOf(engine, name("demo--worker"))
    // the migration ran to its end, with success, before the API started
    expect(migrate.Status).toBe("exited")
    expect(migrate.ExitCode).toBe(0)
    expect(Date.parse(api.StartedAt)).toBeGreaterThanOrEqual(Date.parse(migrate.FinishedAt))
    expect(engine.run(["logs", name("demo--migrate")])).toContain("migrate: done")
    // the API's healthcheck (the exported ready_http) passed before the worker started
    expect(api.Health?.Status).toBe("healthy")
    const firstPass = (api.Health?.Log ?? []).find((entry) => entry.ExitCode === 0)
    expect(firstPass).toBeDefined()
    expect(Date.parse(worker.StartedAt)).toBeGreaterThanOrEqual(Date.parse(firstPass!.Start))
    expect(worker.Status).toBe("running")
    expect(engine.run(["logs", name("demo--worker")])).toContain("worker started")
  }, 600_000)
})
