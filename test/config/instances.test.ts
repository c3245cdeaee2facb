import { describe, expect, it } from "vitest"
import { configDefinitions } from "../../src/config/definitions.js"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("instances", () => {
  it("is unset by default: one daemon under its own name", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.api]", 'run = "api"') })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/api"]!.config.instances).toBeUndefined()
    expect([...configDefinitions(config).keys()]).toEqual(["app/api"])
  })

  it("runs api.1 to api.N, ports shifted by the index, dependencies on every instance", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.api]",
        'run = "api"',
        "instances = 3",
        "port = { expect = [4000, 5000], bump = true }",
        "[daemons.web]",
        'run = "web"',
        'depends = ["api", { id = "migrate", condition = "completed" }]',
        "[daemons.migrate]",
        'run = "migrate"',
        "instances = 2",
      ),
    })
    const defs = configDefinitions(await loadOk(sb, { cwd: "app" }))
    expect([...defs.keys()].sort()).toEqual([
      "app/api.1",
      "app/api.2",
      "app/api.3",
      "app/migrate.1",
      "app/migrate.2",
      "app/web",
    ])
    expect(defs.get("app/api.3")!.config.port).toEqual({ expect: [4002, 5002], bump: true })
    expect(defs.get("app/api.2")!.instance).toEqual({ daemon: "app/api", index: 2 })
    expect(defs.get("app/api.2")!.id).toMatchObject({ name: "api.2", safe_path: "app--api.2" })
    const web = defs.get("app/web")!.config
    expect(web.depends).toEqual(["app/api.1", "app/api.2", "app/api.3", "app/migrate.1", "app/migrate.2"])
    expect(web.depends_conditions).toEqual({ "app/migrate.1": "completed", "app/migrate.2": "completed" })
  })

  it("a scaled count replaces the configured one", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.api]", 'run = "api"', "instances = 2") })
    const config = await loadOk(sb, { cwd: "app" })
    expect([...configDefinitions(config, new Map([["app/api", 4]])).keys()]).toEqual([
      "app/api.1",
      "app/api.2",
      "app/api.3",
      "app/api.4",
    ])
  })

  it.each([
    ["instances = 0", "0"],
    ["instances = -1", "-1"],
    ["instances = 1000", "1000"],
    ["instances = 2.5", "2.5"],
    ['instances = "3"', '"3"'],
  ])("%s is refused, naming the file, line, key and the range", async (line) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.api]", 'run = "api"', line) })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidValue"])
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe("daemons.api.instances")
    expect(p.message).toContain("from 1 to 64")
  })

  it("a daemon named as an instance of a replicated one is refused, with where and the fix", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.api]",
        'run = "api"',
        "instances = 2",
        '[daemons."api.7"]',
        'run = "other"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDaemonName")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe("daemons.api.7")
    expect(p.message).toContain("app/api.7 has the name of an instance of app/api")
    expect(p.message).toContain(`${sb.path("app/supervisor.toml")}:3`)
    expect(p.hint).toContain("rename [daemons.api.7] (such as api-7)")
  })

  it("a daemon named api.2 is fine when api has no instances", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.api]", 'run = "api"', '[daemons."api.2"]', 'run = "other"'),
    })
    expect(Object.keys((await loadOk(sb, { cwd: "app" })).daemons).sort()).toEqual(["app/api", "app/api.2"])
  })
})
