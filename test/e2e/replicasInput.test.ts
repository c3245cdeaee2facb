/**
 * Bad input of replicas through the built CLI (docs/replicas.md): a count out of range, or on a
 * daemon without `instances`, refused by `scale`; `instances` = 0, -1 or 1000 and a daemon named
 * as an instance refused by `config validate`; `daemons add --instances` writing the key, or
 * refusing a bad count without writing anything.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

let sb: DaemonSandbox
let shop = ""

beforeAll(() => {
  sb = makeDaemonSandbox()
  shop = sb.project("shop", '[daemons.api]\nrun = "exec sleep 300"\ninstances = 2\nready_delay = 0\n')
})
afterAll(() => sb.destroy())

describe("replicas: bad input (e2e)", () => {
  it("scale refuses a count out of range and a daemon without instances, saying the fix", async () => {
    for (const count of ["0", "1000"]) {
      const r = await sb.cliAsync(["scale", "api", count], shop)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain("the count must be a whole number from 1 to 64")
    }
    sb.write({ "single/supervisor.toml": '[daemons.one]\nrun = "exec sleep 300"\n' })
    const r = await sb.cliAsync(["scale", "one", "2"], sb.dir("single"))
    expect(r.status).toBe(2)
    expect(r.stderr).toContain("add instances = 1 to [daemons.one]")
  })

  it.each([
    ["instances = 0", "daemons.api.instances"],
    ["instances = -1", "daemons.api.instances"],
    ["instances = 1000", "daemons.api.instances"],
  ])("config validate refuses %s, naming file, line, key and the range", async (line, key) => {
    const dir = sb.project(`bad${line.replace(/\W/g, "")}`, `[daemons.api]\nrun = "x"\n${line}\n`)
    const r = await sb.cliAsync(["config", "validate"], dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(`supervisor.toml:3: ${key}`)
    expect(r.stderr).toContain("from 1 to 64")
  })

  it("config validate refuses a daemon named as an instance of a replicated one", async () => {
    const dir = sb.project("clash", '[daemons.api]\nrun = "x"\ninstances = 2\n[daemons."api.2"]\nrun = "y"\n')
    const r = await sb.cliAsync(["config", "validate"], dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("supervisor.toml:4: daemons.api.2")
    expect(r.stderr).toContain("has the name of an instance of clash/api")
  })
})

describe("daemons add --instances (e2e)", () => {
  it("writes instances into the file; a count out of range is refused and nothing is written", async () => {
    const dir = sb.dir("added")
    const ok = await sb.cliAsync(
      ["daemons", "add", "api", "--instances", "3", "--", "exec", "sleep", "300"],
      dir,
    )
    expect(ok.status, ok.stderr).toBe(0)
    const file = () => readFileSync(join(dir, "supervisor.toml"), "utf8")
    expect(file()).toContain('[daemons.api]\nrun = "exec sleep 300"\ninstances = 3\n')
    const bad = await sb.cliAsync(["daemons", "add", "web", "--instances", "0", "--", "x"], dir)
    expect(bad.status).toBe(1)
    expect(bad.stderr).toContain("daemons.web.instances: expected a whole number of processes from 1 to 64")
    expect(file()).not.toContain("daemons.web")
  })
})
