import { describe, expect, it } from "vitest"
import { settingEntries } from "../../src/config/settingsEntries.js"
import { settingInfos } from "../../src/config/settingsInfo.js"
import { settingGroups } from "../../src/domain/Settings.js"
import { loadOk, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

/** `settings get KEY --json`'s entry, as the configuration seen from `cwd` gives it. */
const entry = async (
  sb: ReturnType<ReturnType<typeof useSandbox>>,
  key: string,
  env: Record<string, string> = {},
) => {
  const config = await loadOk(sb, { cwd: "work/proj", env })
  return settingEntries(config, { ...sb.env, ...env }).find((e) => e.key === key)!
}

describe("settings: precedence of the value in force", () => {
  // every level sets stop_timeout; each step removes the highest one
  const files = (sb: ReturnType<ReturnType<typeof useSandbox>>) =>
    sb.write({
      "etc/supervisor/config.toml": '[settings.supervisor]\nstop_timeout = "1s"\n',
      "home/.config/supervisor/config.toml": '[settings.supervisor]\nstop_timeout = "2s"\n',
      "work/proj/supervisor.toml": '[settings.supervisor]\nstop_timeout = "3s"\n',
      "work/proj/supervisor.local.toml": '[settings.supervisor]\nstop_timeout = "4s"\n',
    })

  it("the environment wins over every file", async () => {
    const sb = sandbox()
    files(sb)
    const e = await entry(sb, "supervisor.stop_timeout", { SUPERVISOR_SUPERVISOR_STOP_TIMEOUT: "5s" })
    expect(e).toMatchObject({ value: "5s", source: "environment", default: "5s" })
    expect(e.file).toBeUndefined()
  })

  it("then the local file, the project file, the user file, the system file, the default", async () => {
    const sb = sandbox()
    files(sb)
    expect(await entry(sb, "supervisor.stop_timeout")).toMatchObject({
      value: "4s",
      source: "local",
      file: sb.path("work/proj/supervisor.local.toml"),
    })
    sb.write({ "work/proj/supervisor.local.toml": "" })
    expect(await entry(sb, "supervisor.stop_timeout")).toMatchObject({
      value: "3s",
      source: "project",
      file: sb.path("work/proj/supervisor.toml"),
    })
    sb.write({ "work/proj/supervisor.toml": "" })
    expect(await entry(sb, "supervisor.stop_timeout")).toMatchObject({
      value: "2s",
      source: "user",
      file: sb.path("home/.config/supervisor/config.toml"),
    })
    sb.write({ "home/.config/supervisor/config.toml": "" })
    expect(await entry(sb, "supervisor.stop_timeout")).toMatchObject({
      value: "1s",
      source: "system",
      file: sb.path("etc/supervisor/config.toml"),
    })
    sb.write({ "etc/supervisor/config.toml": "" })
    const d = await entry(sb, "supervisor.stop_timeout")
    expect(d).toMatchObject({ value: "5s", source: "default", default: "5s" })
    expect(d.file).toBeUndefined()
  })

  it("a top-level [general] table counts as [settings.general] of its file", async () => {
    const sb = sandbox()
    sb.write({ "work/proj/supervisor.toml": '[general]\nshell = "bash -c"\n' })
    expect(await entry(sb, "general.shell")).toMatchObject({ value: "bash -c", source: "project" })
  })

  it("an optional setting that is not set has no value and no default", async () => {
    const sb = sandbox()
    const e = await entry(sb, "api.token")
    expect(e.value).toBeUndefined()
    expect(e.default).toBeUndefined()
    expect(e.source).toBe("default")
  })
})

describe("settings: all from the one Schema", () => {
  it("lists every key of every group, with its environment variable, default, type and description", () => {
    const keys = Object.entries(settingGroups).flatMap(([g, s]) =>
      Object.keys(s.fields).map((k) => `${g}.${k}`),
    )
    expect(settingInfos().map((s) => s.key)).toEqual(keys)
    for (const s of settingInfos()) {
      expect(s.env).toBe(`SUPERVISOR_${s.group.toUpperCase()}_${s.name.toUpperCase()}`)
      expect(s.description).not.toBe("")
    }
    const by = (key: string) => settingInfos().find((s) => s.key === key)!
    expect(by("general.interval")).toMatchObject({ type: "duration", default: "10s" })
    expect(by("web.bind_port")).toMatchObject({ type: "integer", default: 3120 })
    expect(by("web.auto_start")).toMatchObject({ type: "boolean", default: false })
    expect(by("general.shell")).toMatchObject({ type: "string", default: "sh -c" })
    expect(by("supervisor.user")).toMatchObject({ type: "string or integer", default: undefined })
    expect(by("logs.log_format").type).toBe("one of text|json|logfmt|auto")
    expect(by("logs.archive_hook").type).toBe("table")
  })
})
