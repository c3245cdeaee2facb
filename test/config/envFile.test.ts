import { describe, expect, it } from "vitest"
import { formatProblem } from "../../src/domain/ConfigProblem.js"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("env_file and [env] in config files", () => {
  it("resolves paths from the file's directory and collects the project's top-level env", async () => {
    const sb = sandbox()
    sb.write({
      "p/.env": "A=1\n",
      "p/shared.env": "B=2\n",
      "home/x.env": "C=3\n",
      "p/supervisor.toml": toml(
        'env_file = "shared.env"',
        "[env]",
        'LEVEL = "main"',
        'ONLY_MAIN = "yes"',
        "[daemons.api]",
        'run = "x"',
        'env_file = [".env", { path = "~/x.env" }, { path = "none.env", optional = true }]',
        "[daemons.plain]",
        'run = "y"',
      ),
      "p/supervisor.local.toml": toml("[env]", 'LEVEL = "local"'),
    })
    const config = await loadOk(sb, { cwd: "p" })
    const api = config.daemons["p/api"]!.config
    expect(api.env_file).toEqual([
      { path: sb.path("p/.env"), optional: false },
      { path: sb.path("home/x.env"), optional: false },
      { path: sb.path("p/none.env"), optional: true },
    ])
    for (const d of [api, config.daemons["p/plain"]!.config]) {
      expect(d.shared_env).toEqual({ LEVEL: "local", ONLY_MAIN: "yes" })
      expect(d.shared_env_file).toEqual([{ path: sb.path("p/shared.env"), optional: false }])
    }
    expect(config.daemons["p/plain"]!.config.env_file).toEqual([])
  })

  it("the user file's top-level env reaches only its own daemons", async () => {
    const sb = sandbox()
    sb.write({
      "home/.config/supervisor/config.toml": toml("[env]", 'GLOBAL = "1"', "[daemons.g]", 'run = "g"'),
      "p/supervisor.toml": toml("[daemons.api]", 'run = "x"'),
    })
    const config = await loadOk(sb, { cwd: "p" })
    const g = Object.values(config.daemons).find((d) => d.id.name === "g")
    expect(g?.config.shared_env).toEqual({ GLOBAL: "1" })
    expect(config.daemons["p/api"]!.config.shared_env).toEqual({})
  })

  it("a missing env file names the config file, line and key, with the optional form as the fix", async () => {
    const sb = sandbox()
    sb.write({
      "p/supervisor.toml": toml(
        'env_file = "top.env"',
        "[daemons.api]",
        'run = "x"',
        'env_file = [".env", "b.env"]',
      ),
      "p/.env": "A=1\n",
    })
    const err = await loadErr(sb, { cwd: "p" })
    expect(tags(err)).toEqual(["MissingEnvFile", "MissingEnvFile"])
    const [top, own] = err.problems
    expect(top).toMatchObject({ file: sb.path("p/supervisor.toml"), line: 1, key: "env_file" })
    expect(top!.message).toBe(`env file ${sb.path("p/top.env")} does not exist`)
    expect(top!.hint).toBe(
      'create it, or mark it optional: env_file = [{ path = "top.env", optional = true }]',
    )
    expect(formatProblem(own!)).toBe(
      `${sb.path("p/supervisor.toml")}:4: daemons.api.env_file[1]: env file ${sb.path("p/b.env")} does not exist\n  hint: create it, or mark it optional: env_file = [{ path = "b.env", optional = true }]`,
    )
  })

  it("a malformed line names the env file and line, once however many daemons read it", async () => {
    const sb = sandbox()
    sb.write({
      "p/.env": "# comment\nGOOD=1\nBAD LINE\n",
      "p/supervisor.toml": toml(
        "[daemons.a]",
        'run = "x"',
        'env_file = ".env"',
        "[daemons.b]",
        'run = "y"',
        'env_file = ".env"',
      ),
    })
    const err = await loadErr(sb, { cwd: "p" })
    const p = only(err, "InvalidEnvFile")
    expect(p).toMatchObject({ file: sb.path("p/.env"), line: 3 })
    expect(formatProblem(p)).toMatch(
      new RegExp(`^${sb.path("p/.env")}:3: expected "=" after BAD: write BAD=value\\n  hint: fix the line`),
    )
  })

  it("a template of the top-level [env] naming no configured daemon names the file, line and key", async () => {
    const sb = sandbox()
    sb.write({
      "p/supervisor.toml": toml(
        "[env]",
        'DB = "localhost:{{ daemons.dbb.port }}"',
        "[daemons.db]",
        'run = "x"',
      ),
    })
    const p = only(await loadErr(sb, { cwd: "p" }), "InvalidTemplate")
    expect(p).toMatchObject({ file: sb.path("p/supervisor.toml"), line: 2, key: "env.DB" })
    expect(p.message).toContain('names "dbb", which is not a configured daemon')
  })

  it("refuses a wrong shape of env_file", async () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": toml("[daemons.a]", 'run = "x"', "env_file = [{ optional = true }]") })
    const err = await loadErr(sb, { cwd: "p" })
    expect(tags(err)).toEqual(["InvalidValue"])
    expect(err.problems[0]!.key).toMatch(/^daemons\.a\.env_file/)
  })
})
