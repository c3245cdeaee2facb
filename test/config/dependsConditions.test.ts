import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

/** A project with db, migrate and an api whose `depends` line is `depends`. */
const project = (depends: string) =>
  toml(
    "[daemons.db]",
    'run = "db"',
    "[daemons.migrate]",
    'run = "migrate"',
    "[daemons.api]",
    'run = "api"',
    `depends = ${depends}`,
  )

describe("depends with a condition", () => {
  it("a table gives the condition; a plain string is `ready`; the IDs resolve as plain ones", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": project(
        '["db", { id = "migrate", condition = "completed" }, { id = "global/tunnel" }]',
      ),
      "home/.config/supervisor/config.toml": toml(
        "[daemons.tunnel]",
        'run = "tunnel"',
        "[daemons.spawn]",
        'run = "s"',
      ),
    })
    const api = (await loadOk(sb, { cwd: "app" })).daemons["app/api"]!.config
    expect(api.depends).toEqual(["app/db", "app/migrate", "global/tunnel"])
    // only the conditions that are not the default are kept
    expect(api.depends_conditions).toEqual({ "app/migrate": "completed" })
  })

  it("a qualified ID of another namespace up the tree, with `started`", async () => {
    const sb = sandbox()
    sb.write({
      "w/supervisor.toml": toml("[daemons.migrate]", 'run = "m"'),
      "w/app/supervisor.toml": toml(
        "[daemons.api]",
        'run = "api"',
        'depends = [{ id = "w/migrate", condition = "started" }]',
      ),
    })
    const api = (await loadOk(sb, { cwd: "w/app" })).daemons["app/api"]!.config
    expect(api.depends).toEqual(["w/migrate"])
    expect(api.depends_conditions).toEqual({ "w/migrate": "started" })
  })

  it("an unknown condition names the file, the key and the allowed values", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('["db", { id = "migrate", condition = "done" }]') })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidDependency"])
    const p = only(err, "InvalidDependency")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(7)
    expect(p.key).toBe("daemons.api.depends[1].condition")
    expect(p.message).toContain('"done"')
    expect(`${p.message} ${p.hint ?? ""}`).toMatch(/"ready".*"completed".*"started"/)
  })

  it("an unknown key in the table is reported with the known ones", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('[{ id = "migrate", conditon = "completed" }]') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "UnknownKey")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.key).toBe("daemons.api.depends[0].conditon")
    expect(p.hint).toBe('did you mean "condition"?')
  })

  it("a table without an id says so", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('[{ condition = "completed" }]') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.key).toBe("daemons.api.depends[0].id")
    expect(p.message).toContain('missing required key "id"')
  })

  it("a malformed ID in a table is reported as in a plain string", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('[{ id = "a//b", condition = "completed" }]') })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidDependency")
    expect(p.key).toBe("daemons.api.depends[0].id")
    expect(p.message).toContain("more than one slash")
    expect(p.hint).toContain("<namespace>/<name>")
  })

  it("an unknown daemon in a table suggests the closest name", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('["db", { id = "migrat", condition = "completed" }]') })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidDependency")
    expect(p.key).toBe("daemons.api.depends[1]")
    expect(p.hint).toBe('did you mean "app/migrate"?')
  })

  it("one daemon listed twice with different conditions is a problem", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": project('["migrate", { id = "migrate", condition = "completed" }]') })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidDependency")
    expect(p.key).toBe("daemons.api.depends[1]")
    expect(p.message).toContain('"ready" and "completed"')
  })

  it("a cycle through a table is a cycle", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.a]",
        'run = "a"',
        'depends = [{ id = "b", condition = "completed" }]',
        "[daemons.b]",
        'run = "b"',
        'depends = ["a"]',
      ),
    })
    const p = only(await loadErr(sb, { cwd: "app" }), "DependencyCycle")
    expect(p.message).toContain("app/a -> app/b -> app/a")
  })

  it("a later file's depends replaces the conditions with the list", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": project('[{ id = "migrate", condition = "completed" }]'),
      "app/supervisor.local.toml": toml("[daemons.api]", 'depends = ["migrate"]'),
    })
    const api = (await loadOk(sb, { cwd: "app" })).daemons["app/api"]!.config
    expect(api.depends).toEqual(["app/migrate"])
    expect(api.depends_conditions).toEqual({})
  })
})
