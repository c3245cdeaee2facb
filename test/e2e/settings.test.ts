/**
 * `supervisor settings`, `settings list/get/set` and `supervisor completion` through the built
 * CLI: values in force with their sources, format-preserving writes to each file, refusals that
 * leave the file untouched, and a setting written while the supervisor runs taking effect.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { parse } from "smol-toml"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { writeTomlAtomic } from "../../src/config/edit/tomlEditWrite.js"
import { SettingEntry, SettingList } from "../../src/domain/SettingsOutput.js"
import {
  apiGet,
  type DaemonSandbox,
  makeDaemonSandbox,
  makeSandbox,
  runCli,
  type Sandbox,
  STACK_LINE,
  supervisorPids,
  waitFor,
} from "./harness.js"

const PROJECT = `# the shop's daemons
namespace = "shop"

[daemons.web]
run   = "exec sleep 300"    # a stand-in server
ready_delay = 0

# CLI behaviour
[settings.supervisor]
auto_start = true   # start the supervisor when needed
`

describe("settings (e2e)", () => {
  let sb: Sandbox
  let project: string
  beforeEach(() => {
    sb = makeSandbox()
    project = join(sb.root, "work", "shop")
    sb.write({ "work/shop/supervisor.toml": PROJECT, "work/shop/src/.keep": "" })
  })
  afterEach(() => sb.cleanup())
  const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd = project) =>
    runCli(args, { cwd, env: { ...sb.env, ...env } })
  const file = (rel: string) => readFileSync(join(sb.root, rel), "utf8")

  it("supervisor settings prints every setting as TOML: defaults commented, the values in force set", () => {
    sb.write({ "home/.config/supervisor/config.toml": "[settings.web]\nbind_port = 4100\n" })
    const r = cli(["settings"])
    expect(r.status, r.stderr).toBe(0)
    for (const group of ["general", "supervisor", "web", "api", "logs", "proxy", "metrics", "tui"])
      expect(r.stdout).toContain(`[settings.${group}]`)
    expect(r.stdout).toContain('# interval = "10s"')
    expect(r.stdout).toMatch(/^bind_port = 4100 {2}# from .*config\.toml; default 3120$/m)
    expect(r.stdout).toContain(
      "# Port of the web UI listener; 0 picks a free one (integer; SUPERVISOR_WEB_BIND_PORT)",
    )
    // valid TOML: the values in force that differ from the defaults (and the project's own)
    expect(parse(r.stdout)).toEqual({
      settings: {
        general: {},
        supervisor: { auto_start: true },
        web: { bind_port: 4100 },
        api: {},
        logs: {},
        proxy: {},
        metrics: {},
        tui: {},
      },
    })
  })

  it("settings list shows key, type, value, default, source, variable and description; --json through its Schema", () => {
    const r = cli(["settings", "list", "--group", "supervisor"], { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "9s" })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout.split("\n")[0]).toMatch(/^KEY +TYPE +VALUE +DEFAULT +SOURCE +ENV +DESCRIPTION$/)
    expect(r.stdout).toMatch(
      /^supervisor\.stop_timeout +duration +"9s" +"5s" +environment +SUPERVISOR_SUPERVISOR_STOP_TIMEOUT +How long/m,
    )
    expect(r.stdout).not.toContain("web.bind_port")
    const json = cli(["settings", "list", "--json"])
    expect(json.status, json.stderr).toBe(0)
    const list = Schema.decodeUnknownSync(SettingList)(JSON.parse(json.stdout), { onExcessProperty: "error" })
    expect(list.find((e) => e.key === "supervisor.auto_start")).toMatchObject({
      value: true,
      source: "project",
      file: join(project, "supervisor.toml"),
    })
    const bad = cli(["settings", "list", "--group", "nope"])
    expect(bad.status).toBe(2)
  })

  it("settings get honours env > local > project > user > system > default; an unknown key exits 1 with the closest", () => {
    const get = (env: Record<string, string> = {}) => {
      const r = cli(["settings", "get", "general.shell", "--json"], env)
      expect(r.status, r.stderr).toBe(0)
      return Schema.decodeUnknownSync(SettingEntry)(JSON.parse(r.stdout))
    }
    expect(get()).toMatchObject({ value: "sh -c", source: "default" })
    sb.write({ "etc/supervisor/config.toml": '[settings.general]\nshell = "sys -c"\n' })
    expect(get()).toMatchObject({ value: "sys -c", source: "system" })
    sb.write({ "home/.config/supervisor/config.toml": '[settings.general]\nshell = "user -c"\n' })
    expect(get()).toMatchObject({ value: "user -c", source: "user" })
    sb.write({ "work/shop/supervisor.toml": `${PROJECT}\n[settings.general]\nshell = "proj -c"\n` })
    expect(get()).toMatchObject({ value: "proj -c", source: "project" })
    sb.write({ "work/shop/supervisor.local.toml": '[settings.general]\nshell = "local -c"\n' })
    expect(get()).toMatchObject({ value: "local -c", source: "local" })
    expect(get({ SUPERVISOR_GENERAL_SHELL: "env -c" })).toMatchObject({
      value: "env -c",
      source: "environment",
    })
    // plain text: the value alone
    expect(cli(["settings", "get", "settings.general.shell"]).stdout).toBe("local -c\n")

    const unknown = cli(["settings", "get", "general.shel"])
    expect(unknown.status).toBe(1)
    expect(unknown.stderr).toMatch(/unknown setting "general\.shel"\. Did you mean one of: general\.shell/)
    expect(unknown.stderr).not.toMatch(STACK_LINE)
  })

  it("settings set writes the project file in place, keeping every other byte; --local and --global their files", () => {
    const set = cli(["settings", "set", "supervisor.auto_start", "false"], {}, join(project, "src"))
    expect(set.status, set.stderr).toBe(0)
    expect(set.stdout).toBe(`settings.supervisor.auto_start = false in ${join(project, "supervisor.toml")}\n`)
    expect(file("work/shop/supervisor.toml")).toBe(
      PROJECT.replace("auto_start = true   #", "auto_start = false   #"),
    )
    const added = cli(["settings", "set", "supervisor.stop_timeout", "10s"])
    expect(added.status, added.stderr).toBe(0)
    // a setting only the supervisor reads is written where asked, with a warning that it has no effect there
    expect(added.stderr).toMatch(
      /warning: .*settings\.supervisor\.stop_timeout has no effect in a project file/,
    )
    expect(file("work/shop/supervisor.toml")).toBe(
      PROJECT.replace(
        "auto_start = true   # start the supervisor when needed\n",
        'auto_start = false   # start the supervisor when needed\nstop_timeout = "10s"\n',
      ),
    )

    const local = cli(["settings", "set", "web.bind_port", "4300", "--local"])
    expect(local.status, local.stderr).toBe(0)
    expect(local.stdout).toContain("(created)")
    expect(file("work/shop/supervisor.local.toml")).toBe("[settings.web]\nbind_port = 4300\n")

    const global = cli(["settings", "set", "general.tool_manager", "true", "--global"])
    expect(global.status, global.stderr).toBe(0)
    expect(file("home/.config/supervisor/config.toml")).toBe("[settings.general]\ntool_manager = true\n")
    expect(cli(["settings", "get", "general.tool_manager"]).stdout).toBe("true\n")

    const both = cli(["settings", "set", "web.bind_port", "1", "--local", "--global"])
    expect(both.status).toBe(2)
    expect(both.stderr).toContain("--local and --global")
  })

  it("settings set refuses a bad value, an unknown key or a table, leaving the files untouched", () => {
    const before = file("work/shop/supervisor.toml")
    const cases: ReadonlyArray<[ReadonlyArray<string>, RegExp]> = [
      [
        ["general.interval", "5"],
        /invalid value "5" for settings\.general\.interval \(duration\): .*has no unit/,
      ],
      [["web.bind_port", "70000"], /settings\.web\.bind_port \(integer\).*nothing was written/],
      [["web.auto_start", "yes"], /invalid value "yes" for settings\.web\.auto_start \(boolean\)/],
      [["logs.log_format", "xml"], /invalid value "xml" for settings\.logs\.log_format/],
      [["web.bind_prot", "1"], /unknown setting "web\.bind_prot"\. Did you mean one of: web\.bind_port/],
      [["logs.archive_hook", "x"], /settings\.logs\.archive_hook is a table/],
    ]
    for (const [args, message] of cases) {
      const r = cli(["settings", "set", ...args])
      expect(r.status, args.join(" ")).toBe(1)
      expect(r.stderr).toMatch(message)
      expect(r.stderr).not.toMatch(STACK_LINE)
    }
    expect(file("work/shop/supervisor.toml")).toBe(before)
    expect(existsSync(join(project, "supervisor.local.toml"))).toBe(false)

    // a file the edit cannot grow: refused, naming the file and the line
    sb.write({ "work/shop/supervisor.local.toml": "settings = { web = { bind_port = 1 } }\n" })
    const inline = cli(["settings", "set", "web.auto_start", "true", "--local"])
    expect(inline.status).toBe(1)
    expect(inline.stderr).toMatch(
      /not written to .*supervisor\.local\.toml: settings\.web is an inline table \(line 1\)/,
    )
    expect(file("work/shop/supervisor.local.toml")).toBe("settings = { web = { bind_port = 1 } }\n")
  })
})

describe("supervisor completion (e2e)", () => {
  let sb: Sandbox
  beforeEach(() => {
    sb = makeSandbox()
  })
  afterEach(() => sb.cleanup())

  it.each(["bash", "zsh", "fish"])("completion %s prints the script --completions prints", (shell) => {
    const r = runCli(["completion", shell], { cwd: sb.root, env: sb.env })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toBe(runCli(["--completions", shell], { cwd: sb.root, env: sb.env }).stdout)
    // dynamic words: daemon IDs, groups and setting keys come from the CLI itself
    for (const kind of ["daemons", "groups", "settings"])
      expect(r.stdout).toContain(`supervisor complete ${kind}`)
    expect(r.stdout).toContain("settings")
  })

  it("another shell is a usage error naming the three", () => {
    const r = runCli(["completion", "tcsh"], { cwd: sb.root, env: sb.env })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/bash, zsh, fish/)
  })
})

describe("settings set while the supervisor runs (e2e)", () => {
  let sb: DaemonSandbox
  beforeEach(() => {
    sb = makeDaemonSandbox()
  })
  afterEach(() => sb.destroy())

  it("a setting written while it runs is in force at the next command: supervisor.auto_start false keeps a stopped supervisor down", async () => {
    const proj = sb.project("shop", PROJECT)
    const started = sb.cli(["start", "web"], proj)
    expect(started.status, started.stderr).toBe(0)
    expect(supervisorPids(sb.stateDir).length).toBeGreaterThan(0)

    const set = sb.cli(["settings", "set", "supervisor.auto_start", "false", "--local"], proj)
    expect(set.status, set.stderr).toBe(0)
    expect(sb.cli(["settings", "get", "supervisor.auto_start"], proj).stdout).toBe("false\n")
    // the running supervisor re-reads the project's files on change and keeps serving
    const status = sb.cli(["status", "web"], proj)
    expect(status.status, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/running/)

    // the supervisor sees a file replaced the way `settings set` replaces it (a rename over it)
    const file = join(proj, "supervisor.toml")
    writeTomlAtomic(file, `${readFileSync(file, "utf8")}\n[daemons.api]\nrun = "exec sleep 301"\n`)
    await waitFor(
      "the supervisor to list the daemon added by an atomic replace",
      async () =>
        ((await apiGet<Array<{ id: { qualified: string } }>>(sb.stateDir, "/api/daemons")) ?? []).some(
          (e) => e.id.qualified === "shop/api",
        ),
      { timeout: 15_000 },
    )

    const stop = sb.cli(["supervisor", "stop"], proj)
    expect(stop.status, stop.stderr).toBe(0)
    await waitFor("the supervisor to exit", () => supervisorPids(sb.stateDir).length === 0, {
      timeout: 15_000,
    })
    // with auto_start false a command that needs the supervisor does not start it
    const list = sb.cli(["list"], proj)
    expect(list.status).toBe(1)
    expect(supervisorPids(sb.stateDir)).toEqual([])

    // set back in place: the next command starts it again
    const back = sb.cli(["settings", "set", "supervisor.auto_start", "true", "--local"], proj)
    expect(back.status, back.stderr).toBe(0)
    expect(readFileSync(join(proj, "supervisor.local.toml"), "utf8")).toBe(
      "[settings.supervisor]\nauto_start = true\n",
    )
    const again = sb.cli(["list"], proj)
    expect(again.status, again.stderr).toBe(0)
    expect(supervisorPids(sb.stateDir).length).toBeGreaterThan(0)
  }, 60_000)
})
