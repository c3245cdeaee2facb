import * as fs from "node:fs"
import { Effect, Either } from "effect"
import { parse } from "smol-toml"
import { describe, expect, it } from "vitest"
import { settingsTarget, writeSetting } from "../../../src/config/edit/settingsFile.js"
import { useSandbox } from "../helpers.js"

const sandbox = useSandbox()

const PROJECT = `# the shop
namespace = "shop"

[daemons.api]
run = "node server.js"   # port 3000

[settings.supervisor]
auto_start = false # keep the CLI from starting it
`

const write = (path: string, group: string, key: string, value: string | number | boolean) =>
  Effect.runSync(
    Effect.either(writeSetting({ path, level: "project", local: false, baseDir: "/" }, group, key, value)),
  )

describe("settingsTarget", () => {
  it("is the nearest project's supervisor.toml, its local file beside it, or the user's file", () => {
    const sb = sandbox()
    sb.write({ "work/shop/supervisor.toml": PROJECT, "work/shop/src/.keep": "" })
    const cwd = sb.path("work/shop/src")
    expect(settingsTarget(cwd, "project", sb.env, sb.home).path).toBe(sb.path("work/shop/supervisor.toml"))
    expect(settingsTarget(cwd, "local", sb.env, sb.home).path).toBe(
      sb.path("work/shop/supervisor.local.toml"),
    )
    expect(settingsTarget(cwd, "global", sb.env, sb.home).path).toBe(`${sb.userDir}/config.toml`)
  })

  it("follows a project whose files live in .config/, and is the current directory without a project", () => {
    const sb = sandbox()
    sb.write({ "work/a/.config/supervisor.toml": "", "work/b/.keep": "" })
    expect(settingsTarget(sb.path("work/a"), "local", sb.env, sb.home).path).toBe(
      sb.path("work/a/.config/supervisor.local.toml"),
    )
    expect(settingsTarget(sb.path("work/b"), "project", sb.env, sb.home).path).toBe(
      sb.path("work/b/supervisor.toml"),
    )
  })
})

describe("writeSetting", () => {
  it("writes the value in place and keeps every other byte", () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": PROJECT })
    const file = sb.path("p/supervisor.toml")
    const r = write(file, "supervisor", "auto_start", true)
    expect(Either.isRight(r) && r.right).toMatchObject({ path: file, created: false })
    expect(fs.readFileSync(file, "utf8")).toBe(
      PROJECT.replace("auto_start = false # keep", "auto_start = true # keep"),
    )
  })

  it("creates a file that does not exist yet, and its directory", () => {
    const sb = sandbox()
    const file = sb.path("home/.config/supervisor/config.toml")
    const r = write(file, "web", "bind_port", 4000)
    expect(Either.isRight(r) && r.right.created).toBe(true)
    expect(parse(fs.readFileSync(file, "utf8"))).toEqual({ settings: { web: { bind_port: 4000 } } })
  })

  it("warns that a setting only the supervisor reads has no effect in a project file", () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": PROJECT })
    const r = write(sb.path("p/supervisor.toml"), "web", "bind_port", 4000)
    expect(Either.isRight(r) && r.right.warnings).toEqual([
      expect.stringMatching(/settings\.web\.bind_port has no effect in a project file/),
    ])
  })

  it("refuses a value the loader would refuse, leaving the file byte for byte as it was", () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": PROJECT })
    const file = sb.path("p/supervisor.toml")
    const before = fs.statSync(file)
    const r = write(file, "web", "bind_port", 70000)
    expect(Either.isLeft(r) && r.left.message).toMatch(
      /not written to .*supervisor\.toml: the file would not load:\n.*settings\.web\.bind_port.*0 and 65535/,
    )
    expect(fs.readFileSync(file, "utf8")).toBe(PROJECT)
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs)
  })

  it("refuses to edit a file that already has problems, or is not TOML, and leaves it alone", () => {
    const sb = sandbox()
    const broken = '[daemons.api]\nrun = "x"\nbogus = 1\n'
    const notToml = "[settings\nweb = 1\n"
    sb.write({ "a/supervisor.toml": broken, "b/supervisor.toml": notToml })
    const a = write(sb.path("a/supervisor.toml"), "web", "bind_port", 1)
    expect(Either.isLeft(a) && a.left.message).toMatch(/would not load:[\s\S]*bogus/)
    expect(fs.readFileSync(sb.path("a/supervisor.toml"), "utf8")).toBe(broken)
    const b = write(sb.path("b/supervisor.toml"), "web", "bind_port", 1)
    expect(Either.isLeft(b) && b.left.message).toMatch(/it is not valid TOML/)
    expect(fs.readFileSync(sb.path("b/supervisor.toml"), "utf8")).toBe(notToml)
  })

  it("refuses to add a key to an inline settings table, naming the file and line", () => {
    const sb = sandbox()
    const text = "# inline\nsettings = { web = { bind_port = 1 } }\n"
    sb.write({ "p/supervisor.toml": text })
    const r = write(sb.path("p/supervisor.toml"), "web", "auto_start", true)
    expect(Either.isLeft(r) && r.left.message).toMatch(
      /supervisor\.toml: settings\.web is an inline table \(line 2\)/,
    )
    expect(fs.readFileSync(sb.path("p/supervisor.toml"), "utf8")).toBe(text)
    // its existing key is edited in place
    const edit = write(sb.path("p/supervisor.toml"), "web", "bind_port", 2)
    expect(Either.isRight(edit)).toBe(true)
    expect(fs.readFileSync(sb.path("p/supervisor.toml"), "utf8")).toBe(
      "# inline\nsettings = { web = { bind_port = 2 } }\n",
    )
  })

  it("edits a key of a top-level [general] table where it is, not in a new [settings.general]", () => {
    const sb = sandbox()
    const text = '[general]\nshell = "bash -c" # pitchfork style\n'
    sb.write({ "p/supervisor.toml": text })
    const file = sb.path("p/supervisor.toml")
    expect(Either.isRight(write(file, "general", "shell", "zsh -c"))).toBe(true)
    expect(fs.readFileSync(file, "utf8")).toBe('[general]\nshell = "zsh -c" # pitchfork style\n')
    // a key it does not have goes to [settings.general], the table's own spelling
    expect(Either.isRight(write(file, "general", "interval", "5s"))).toBe(true)
    expect(parse(fs.readFileSync(file, "utf8"))).toEqual({
      general: { shell: "zsh -c" },
      settings: { general: { interval: "5s" } },
    })
  })

  it("keeps the file's permissions", () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": PROJECT })
    const file = sb.path("p/supervisor.toml")
    fs.chmodSync(file, 0o640)
    write(file, "supervisor", "auto_start", true)
    expect(fs.statSync(file).mode & 0o777).toBe(0o640)
  })
})
