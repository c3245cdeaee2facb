import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("[namespaces] (projects the supervisor knows from the user config)", () => {
  it("reads name = { dir } from the user config, expanding ~ and resolving relative paths", async () => {
    const sb = sandbox()
    const abs = sb.path("srv/api")
    sb.write({
      "home/.config/supervisor/config.toml": toml(
        "[namespaces]",
        'shop = { dir = "~/code/shop" }',
        `api = { dir = ${JSON.stringify(abs)} }`,
        'rel = { dir = "projects/rel" }',
      ),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(config.namespaces).toEqual({
      shop: nodePath.join(sb.home, "code/shop"),
      api: abs,
      rel: nodePath.join(sb.userDir, "projects/rel"),
    })
  })

  it("is absent without the table", async () => {
    const sb = sandbox()
    sb.write({ "w/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    expect((await loadOk(sb, { cwd: "w" })).namespaces).toBeUndefined()
  })

  it("in a project file is an InvalidValue naming the file, line and the fix", async () => {
    const sb = sandbox()
    sb.write({ "w/supervisor.toml": toml("[namespaces]", 'x = { dir = "/x" }') })
    const p = only(await loadErr(sb, { cwd: "w" }), "InvalidValue")
    expect(p.file).toBe(sb.path("w/supervisor.toml"))
    expect(p.key).toBe("namespaces")
    expect(p.line).toBe(1)
    expect(p.hint).toContain("~/.config/supervisor/config.toml")
  })

  it("an invalid name, a missing or empty dir, an unknown key: each named with its line", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[namespaces]", '"my app" = { dir = "/x" }') })
    const bad = only(await loadErr(sb, { cwd: "w" }), "InvalidValue")
    expect(bad).toMatchObject({ key: "namespaces.my app", line: 2 })
    sb.write({ "home/.config/supervisor/config.toml": toml("[namespaces.app]", 'path = "/x"') })
    const missing = await loadErr(sb, { cwd: "w" })
    expect(missing.problems.map((q) => q.key)).toEqual(
      expect.arrayContaining(["namespaces.app.dir", "namespaces.app.path"]),
    )
    sb.write({ "home/.config/supervisor/config.toml": toml("[namespaces.app]", 'dir = ""') })
    expect(only(await loadErr(sb, { cwd: "w" }), "InvalidValue")).toMatchObject({
      key: "namespaces.app.dir",
      line: 2,
    })
  })
})
