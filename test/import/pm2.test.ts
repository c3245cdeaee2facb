import * as fs from "node:fs"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { importFile } from "../../src/import/index.js"
import { ImportFailed } from "../../src/import/model.js"
import { importPm2 } from "../../src/import/pm2.js"
import { useSandbox } from "../config/helpers.js"
import { daemon, loadImported, ok, warnedKeys } from "./helpers.js"

const sandbox = useSandbox()

const ECOSYSTEM = {
  apps: [
    {
      name: "api",
      script: "server.js",
      args: ["--port", "3000", "--name", "my api"],
      cwd: "api",
      env: { NODE_ENV: "development", WORKERS: 4 },
      max_restarts: 5,
      watch: ["src"],
      cron_restart: "0 3 * * *",
      max_memory_restart: "300M",
      kill_timeout: 3000,
    },
    { name: "queue", script: "python3", args: "worker.py", autorestart: false },
    { script: "./bin/cache", interpreter: "none" },
  ],
}

describe("import pm2", () => {
  it("maps script, args, cwd, env, retries, watch, cron and memory to keys the loader loads", async () => {
    const sb = sandbox()
    sb.mkdir("proj/api/src")
    const imported = ok(importPm2(ECOSYSTEM, sb.path("proj/ecosystem.config.js")))
    expect(imported.warnings).toEqual([])
    const config = await loadImported(sb, imported)
    const api = daemon(config, "api")
    expect(api.run).toBe("exec node server.js --port 3000 --name 'my api'")
    expect(api.dir).toBe(sb.path("proj/api"))
    expect(api.env).toEqual({ NODE_ENV: "development", WORKERS: "4" })
    expect(api.retry).toBe(5)
    expect(api.watch).toEqual(["api/src/**/*"])
    expect(api.cron).toMatchObject({ schedule: "0 0 3 * * *", retrigger: "always" })
    expect(api.memory_limit).toBe(300 * 1024 * 1024)
    expect(api.stop_signal).toMatchObject({ signal: "SIGINT" })
    const queue = daemon(config, "queue")
    expect(queue.run).toBe("exec python3 worker.py")
    expect(queue.restart).toBe("never")
    expect(queue.retry).toBe(0)
    const cache = daemon(config, "cache")
    expect(cache.run).toBe("exec ./bin/cache")
    expect(cache.retry).toBe(true)
  })

  it("warns about instances, cluster mode, other env_ sets, log files and unknown keys", () => {
    const imported = ok(
      importPm2(
        {
          apps: [
            {
              name: "web",
              script: "app.js",
              instances: "max",
              exec_mode: "cluster",
              env_production: { NODE_ENV: "production" },
              out_file: "out.log",
              ignore_watch: ["node_modules", "tmp"],
              watch: true,
              shiny: 1,
            },
          ],
          deploy: {},
        },
        "/p/ecosystem.config.json",
      ),
    )
    expect(warnedKeys(imported).sort()).toEqual(
      [
        "deploy",
        "apps[0].env_production",
        "apps[0].out_file",
        "apps[0].shiny",
        "apps[0].instances",
        "apps[0].exec_mode",
        "apps[0].ignore_watch",
      ].sort(),
    )
    expect(imported.warnings.find((w) => w.key === "apps[0].ignore_watch")!.message).toContain('"tmp"')
  })

  it("fails naming file and key when an app has no script", () => {
    const r = importPm2({ apps: [{ name: "x" }] }, "/p/ecosystem.config.js")
    expect(r).toBeInstanceOf(ImportFailed)
    expect((r as ImportFailed).message).toMatch(/^\/p\/ecosystem\.config\.js: apps\[0\]\.script: missing/)
  })

  it("loads a .js ecosystem file in a child process, CommonJS and ESM alike", async () => {
    const sb = sandbox()
    sb.write({
      "cjs/ecosystem.config.js": `process.env.SUPERVISOR_IMPORT_MARK = "ran here"
module.exports = { apps: [{ name: "a", script: "a.js", env: { PID: String(process.pid) } }] }`,
      "esm/ecosystem.config.mjs": `export default { apps: [{ name: "b", script: "b.js" }] }`,
    })
    const cjs = await Effect.runPromise(importFile("pm2", sb.path("cjs/ecosystem.config.js")))
    const pid = (cjs.daemons[0]!.keys.find(([k]) => k === "env")![1] as Record<string, string>).PID
    expect(pid).not.toBe(String(process.pid))
    expect(process.env.SUPERVISOR_IMPORT_MARK).toBeUndefined()
    const esm = await Effect.runPromise(importFile("pm2", sb.path("esm/ecosystem.config.mjs")))
    expect(esm.daemons.map((d) => d.id)).toEqual(["b"])
  })

  it("reads an ecosystem.config.json as JSON, and names the file when it is not", async () => {
    const sb = sandbox()
    sb.write({
      "ecosystem.config.json": JSON.stringify({ apps: [{ name: "web", script: "npm", args: "run dev" }] }),
      "broken.json": '{ "apps": [',
    })
    const r = await Effect.runPromise(importFile("pm2", sb.path("ecosystem.config.json")))
    expect(r.daemons[0]!.keys[0]).toEqual(["run", "exec npm run dev"])
    const bad = await Effect.runPromise(Effect.either(importFile("pm2", sb.path("broken.json"))))
    expect(Either.isLeft(bad) && bad.left.message).toContain(`${sb.path("broken.json")}: not valid JSON:`)
  })

  it("reports an ecosystem file that throws, with the error's message", async () => {
    const sb = sandbox()
    sb.write({ "ecosystem.config.js": 'throw new Error("no such env")' })
    const r = await Effect.runPromise(Effect.either(importFile("pm2", sb.path("ecosystem.config.js"))))
    expect(Either.isLeft(r) && r.left.message).toContain("loading it failed: Error: no such env")
    expect(fs.existsSync(sb.path("supervisor.toml"))).toBe(false)
  })
})
