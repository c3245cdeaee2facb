import { describe, expect, it } from "vitest"
import { exportNomad } from "../../src/export/nomad.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop } from "./fixture.js"
import { type Job, jobProblems } from "./validate.js"

describe("export nomad (JSON job specification)", () => {
  const sandbox = useSandbox()

  it("a raw_exec job per daemon that parses back; restart policy, memory, kill signal, periodic cron", async () => {
    const { files, warnings } = exportNomad(await loadShop(sandbox()))
    const jobs = Object.fromEntries(files.map((f) => [f.path, JSON.parse(f.content) as Job]))
    for (const [path, job] of Object.entries(jobs)) expect(jobProblems(job), path).toEqual([])
    const api = jobs["shop--api.nomad.json"]!.Job
    expect(api.Type).toBe("service")
    const task = api.TaskGroups[0]!.Tasks[0]!
    expect((task.Config as { args: Array<string> }).args[1]).toMatch(
      /^cd '.*\/shop' && node server\.js --db=\$DB_URL$/,
    )
    expect(task.KillSignal).toBe("SIGINT")
    expect(task.KillTimeout).toBe(5_000_000_000)
    expect(task.Env).toEqual({ NODE_ENV: "development", DB: "localhost:5432", PCT: "100%" })
    expect(api.TaskGroups[0]!.RestartPolicy).toMatchObject({ Mode: "delay" })
    const db = jobs["shop--db.nomad.json"]!.Job
    expect(db.TaskGroups[0]!.RestartPolicy).toMatchObject({ Attempts: 3, Mode: "fail" })
    expect(db.TaskGroups[0]!.Tasks[0]!.Resources).toEqual({ MemoryMB: 512 })
    expect(db.TaskGroups[0]!.Networks).toEqual([{ ReservedPorts: [{ Label: "port5432", Value: 5432 }] }])
    const report = jobs["shop--report.nomad.json"]!.Job
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
        "shop/api: depends (shop/db, shop/migrate) has no Nomad equivalent between jobs: they start in any order",
      ]),
    )
    expect(fileNamed(files, "shop--migrate.nomad.json").endsWith("\n")).toBe(true)
  })
})
