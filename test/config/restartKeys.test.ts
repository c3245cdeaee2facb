import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("restart, success_exit_codes, restart_dependents", () => {
  it("default to on-failure, [0] and false", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const config = (await loadOk(sb, { cwd: "app" })).daemons["app/web"]!.config
    expect([config.restart, config.success_exit_codes, config.restart_dependents]).toEqual([
      "on-failure",
      [0],
      false,
    ])
  })

  it("are read as written", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.web]",
        'run = "web"',
        'restart = "always"',
        "success_exit_codes = [0, 143]",
        "restart_dependents = true",
      ),
    })
    const config = (await loadOk(sb, { cwd: "app" })).daemons["app/web"]!.config
    expect([config.restart, config.success_exit_codes, config.restart_dependents]).toEqual([
      "always",
      [0, 143],
      true,
    ])
  })

  it.each([
    ['restart = "sometimes"', "daemons.web.restart", '"sometimes"'],
    ["restart = true", "daemons.web.restart", "on-failure"],
    ["success_exit_codes = [0, 3.5]", "daemons.web.success_exit_codes[1]", "0 to 255"],
    ["success_exit_codes = [256]", "daemons.web.success_exit_codes[0]", "0 to 255"],
    ["success_exit_codes = [-1]", "daemons.web.success_exit_codes[0]", "0 to 255"],
    ['success_exit_codes = ["0"]', "daemons.web.success_exit_codes[0]", "0 to 255"],
    ["success_exit_codes = 0", "daemons.web.success_exit_codes", "0"],
    ["success_exit_codes = []", "daemons.web.success_exit_codes", "at least one exit code"],
    ['restart_dependents = "yes"', "daemons.web.restart_dependents", '"yes"'],
  ])("%s is refused, naming the file, line and key", async (line, key, mention) => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', line) })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidValue"])
    const p = only(err, "InvalidValue")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(3)
    expect(p.key).toBe(key)
    expect(p.message).toContain(mention)
  })

  it('restart = "always" with cron is refused (ConflictingKeys), with the fix', async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml(
        "[daemons.job]",
        'run = "job"',
        'cron = "0 0 * * * *"',
        'restart = "always"',
      ),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "ConflictingKeys")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(4)
    expect(p.key).toBe("daemons.job.restart")
    expect(p.message).toContain("cron")
    expect(p.hint).toContain("remove")
  })

  it('restart = "never" with a retry count is a warning naming the retry key', async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"', "retry = 3", 'restart = "never"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.warnings).toEqual([
      `${sb.path("app/supervisor.toml")}:3: daemons.web.retry: has no effect with restart = "never"; remove it, or set restart = "on-failure"`,
    ])
  })
})
