import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("deprecated port keys across files", () => {
  it("`port` in a later file overrides the deprecated keys of an earlier one, with a warning", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        "expected_port = [3000]",
        "auto_bump_port = true",
      ),
      "app/supervisor.local.toml": toml("[daemons.web]", "port = 4000"),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [4000], bump: false })
    expect(config.warnings).toHaveLength(1)
    expect(config.warnings[0]).toMatch(/overridden by `port` in a later file/)
  })

  it("deprecated keys in a later file override an earlier `port`", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "port = 4000"),
      "app/supervisor.local.toml": toml("[daemons.web]", "expected_port = [3000]"),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toEqual({ expect: [3000], bump: false })
  })

  it("auto_bump_port without expected_port warns that it has no effect", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "auto_bump_port = true") })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.port).toBeUndefined()
    expect(config.warnings[0]).toMatch(
      /`auto_bump_port` is deprecated and has no effect without `expected_port`/,
    )
  })
})

describe("clearer problems", () => {
  it("a short dependency that exists only in another namespace suggests the qualified ID", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[daemons.redis]", 'run = "redis-server"'),
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', 'depends = ["redis"]'),
    })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidDependency")
    expect(p.hint).toBe('did you mean "global/redis"?')
  })

  it("no suggestion when the only close name is a rewrite of a one-letter name", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.b]", 'run = "b"', "[daemons.a]", 'run = "a"', 'depends = ["c"]'),
    })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidDependency")
    expect(p.hint).toMatch(/^known daemons: /)
  })

  it("a group that is not a table is an invalid value, not a bad member", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[groups]", "g = 5") })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidValue"])
    expect(err.problems[0]!.key).toBe("groups.g")
  })

  it("a missing required key is named, with a hint", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("[slugs.shop]", 'daemon = "web"') })
    const p = only(await loadErr(sb, { cwd: "app" }), "InvalidValue")
    expect(p.key).toBe("slugs.shop.dir")
    expect(p.message).toBe('missing required key "dir"')
    expect(p.hint).toMatch(/^add dir: project directory/)
  })

  it("an env override without a unit says so", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const p = only(
      await loadErr(sb, { cwd: "app", env: { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "5" } }),
      "InvalidEnvOverride",
    )
    expect(p.message).toMatch(/has no unit; write e\.g\. 5s/)
  })
})
