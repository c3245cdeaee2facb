import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { exportNomad } from "../../src/export/nomad.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop, nomadGroups } from "./fixture.js"
import { type Job, jobProblems } from "./validate.js"

describe("export nomad (JSON job specification)", () => {
  const sandbox = useSandbox()

  it("a job per project with a group per daemon; restart policy, memory, kill signal; cron as a periodic job", async () => {
    const { files, warnings } = exportNomad(await loadShop(sandbox()))
    expect(files.map((f) => f.path)).toEqual(["shop--report.nomad.json", "shop.nomad.json"])
    for (const f of files) expect(jobProblems(JSON.parse(f.content) as Job), f.path).toEqual([])
    const groups = nomadGroups(files)
    const shop = JSON.parse(fileNamed(files, "shop.nomad.json")).Job
    expect(shop).toMatchObject({ ID: "shop", Type: "service", Meta: { "supervisor.project": "shop" } })
    // the job itself says what the clients need
    expect(shop.Meta["supervisor.driver"]).toContain('plugin "raw_exec" { config { enabled = true } }')
    // migrate is awaited to complete and nothing else: a prestart task of api's group, no group of its own
    expect([...groups.keys()].sort()).toEqual(["shop--api", "shop--db", "shop--report"])
    const api = groups.get("shop--api")!.group
    const main = api.Tasks.at(-1)!
    expect((main.Config as { args: Array<string> }).args[1]).toMatch(
      /^cd '.*\/shop' && node server\.js --db=\$DB_URL$/,
    )
    expect(main.KillSignal).toBe("SIGINT")
    expect(main.KillTimeout).toBe(5_000_000_000)
    // PORT of its declared port, as the supervisor gives it at a start
    expect(main.Env).toEqual({ NODE_ENV: "development", DB: "localhost:5432", PCT: "100%", PORT: "3000" })
    expect(api.RestartPolicy).toMatchObject({ Mode: "delay" })
    const db = groups.get("shop--db")!.group
    expect(db.RestartPolicy).toMatchObject({ Attempts: 3, Mode: "fail" })
    expect(db.Tasks[0]!.Resources).toEqual({ MemoryMB: 512 })
    expect(db.Networks).toEqual([{ ReservedPorts: [{ Label: "port5432", Value: 5432 }] }])
    // db registers a service with its readiness check, which api's prestart task waits on
    expect(db.Services).toEqual([
      {
        Name: "shop--db",
        Provider: "nomad",
        PortLabel: "port5432",
        Checks: [
          {
            Name: "ready",
            Type: "tcp",
            PortLabel: "port5432",
            Interval: 1_000_000_000,
            Timeout: 1_000_000_000,
          },
        ],
      },
    ])
    const report = JSON.parse(fileNamed(files, "shop--report.nomad.json")).Job
    expect(report.Type).toBe("batch")
    expect(report.Periodic).toEqual({
      Enabled: true,
      SpecType: "cron",
      Spec: "0 30 2 * * 1-5 *",
      ProhibitOverlap: true,
    })
    expect(warnings).toEqual(
      expect.arrayContaining([
        "shop/db: cpu_limit (50%) is not mapped: Nomad reserves CPU in MHz, not a share of a core",
        expect.stringContaining("enable it on the clients"),
      ]),
    )
    expect(fileNamed(files, "shop.nomad.json").endsWith("\n")).toBe(true)
  })

  it("depends: completed is the dependency as a prestart task, ready a prestart wait on its service", async () => {
    const { files } = exportNomad(await loadShop(sandbox()))
    const api = nomadGroups(files).get("shop--api")!.group
    expect(api.Tasks.map((t) => t.Name)).toEqual(["wait-shop--db", "shop--migrate", "shop--api"])
    const [wait, migrate] = api.Tasks
    expect(wait!.Lifecycle).toEqual({ Hook: "prestart", Sidecar: false })
    expect(migrate!.Lifecycle).toEqual({ Hook: "prestart", Sidecar: false })
    expect((migrate!.Config as { args: Array<string> }).args[1]).toMatch(/&& \.\/migrate\.sh$/)
    expect(wait!.Templates).toEqual([
      {
        EmbeddedTmpl: '{{ range nomadService "shop--db" }}{{ .Address }} {{ .Port }}\n{{ end }}',
        DestPath: "local/shop--db.addr",
        ChangeMode: "noop",
      },
    ])
    // the wait: until the rendered address answers
    const script = (wait!.Config as { args: Array<string> }).args[1]!
    expect(script).toBe(
      "until [ -s local/shop--db.addr ] && bash -c 'exec 3<>/dev/tcp/$0/$1' $(head -n 1 local/shop--db.addr) 2>/dev/null; do sleep 1; done",
    )
  })

  it("the wait task's loop ends once the address it reads answers", async () => {
    const { files } = exportNomad(await loadShop(sandbox()))
    const wait = nomadGroups(files).get("shop--api")!.group.Tasks[0]!
    const script = (wait.Config as { args: Array<string> }).args[1]!
    const dir = mkdtempSync(join(tmpdir(), "supervisor-nomad-wait-"))
    const server = createServer((s) => s.end())
    try {
      mkdirSync(join(dir, "local"))
      const child = spawn("/bin/sh", ["-c", script], { cwd: dir, stdio: "ignore" })
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      // nothing rendered yet: it keeps waiting; then the template renders a listening address
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      expect(child.exitCode).toBeNull()
      const port = (server.address() as { port: number }).port
      writeFileSync(join(dir, "local", "shop--db.addr"), `127.0.0.1 ${port}\n`)
      expect(await exited).toBe(0)
    } finally {
      server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
