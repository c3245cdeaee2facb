import { Duration } from "effect"
import { parse as parseToml } from "smol-toml"
import { describe, expect, it } from "vitest"
import { ConfigFile, Group, Slug } from "../../src/domain/ConfigFile.js"
import { decoder, messages, paths } from "./helpers.js"

const { ok, fail } = decoder(ConfigFile)

const PROJECT = `#:schema ./node_modules/supervisor/schemas/supervisor.schema.json
namespace = "shop"

[daemons.db]
run = "exec postgres -D data"
ready_port = 5432

[daemons.api]
run = "npm run dev"
dir = "services/api"
depends = ["db", "infra/cache"]
port = { expect = [3000], bump = true }
ready_http = { url = "http://localhost:{{ daemons.api.port }}/health", status = [401] }
stop_signal = { signal = "INT", timeout = "10s" }

[daemons.api.env]
NODE_ENV = "development"
DEBUG = true

[daemons.api.hooks]
on_ready = "echo ready"
on_output = { run = "echo hit", regex = "ERROR", debounce = "2s" }

[daemons.nightly]
run = "./backup.sh"
cron = { schedule = "0 0 3 * * *", retrigger = "always", immediate = true }

[groups.backend]
daemons = ["db", "api", "infra/cache"]

[settings.supervisor]
stop_timeout = "10s"
cpu_violation_threshold = 5

[general]
interval = "5s"
`

const GLOBAL = `
namespace = "global"

[slugs.shop]
dir = "~/code/shop"
daemon = "api"

[slugs.docs]
dir = "/srv/docs"

[settings.web]
auto_start = true
bind_port = 3130

[settings.api]
token = "t0k3n"
`

describe("ConfigFile: the spec's file layout", () => {
  it("accepts a project file with namespace, daemons, groups and settings", () => {
    const file = ok(parseToml(PROJECT))
    expect(file.namespace).toBe("shop")
    expect(Object.keys(file.daemons ?? {})).toEqual(["db", "api", "nightly"])
    expect(file.daemons?.db).toEqual({ run: "exec postgres -D data", ready_port: { port: 5432 } })
    const api = file.daemons?.api
    expect(api?.env).toEqual({ NODE_ENV: "development", DEBUG: "true" })
    expect(api?.port).toEqual({ expect: [3000], bump: true })
    expect(api?.depends).toEqual(["db", "infra/cache"])
    expect(api?.ready_http).toEqual({ url: "http://localhost:{{ daemons.api.port }}/health", status: [401] })
    expect(api?.stop_signal?.signal).toBe("SIGINT")
    expect(Duration.toMillis(api!.stop_signal!.timeout!)).toBe(10_000)
    expect(api?.hooks?.on_ready).toBe("echo ready")
    expect(api?.hooks?.on_output?.regex).toBe("ERROR")
    expect(file.daemons?.nightly?.cron).toEqual({
      schedule: "0 0 3 * * *",
      retrigger: "always",
      immediate: true,
    })
    expect(file.groups).toEqual({ backend: { daemons: ["db", "api", "infra/cache"] } })
  })

  it("reads [settings.supervisor] and [general], filling the other keys of those tables", () => {
    const file = ok(parseToml(PROJECT))
    expect(Duration.toMillis(file.settings!.supervisor!.stop_timeout)).toBe(10_000)
    expect(file.settings?.supervisor?.cpu_violation_threshold).toBe(5)
    expect(Duration.toMillis(file.settings!.supervisor!.watch_poll_interval)).toBe(500)
    expect(file.settings?.general).toBeUndefined()
    expect(Duration.toMillis(file.general!.interval)).toBe(5_000)
  })

  it("accepts a global file with slugs and web/api settings", () => {
    const file = ok(parseToml(GLOBAL))
    expect(file.namespace).toBe("global")
    expect(file.slugs).toEqual({ shop: { dir: "~/code/shop", daemon: "api" }, docs: { dir: "/srv/docs" } })
    expect(file.settings?.web?.auto_start).toBe(true)
    expect(file.settings?.web?.bind_port).toBe(3130)
    expect(file.settings?.api?.token).toBe("t0k3n")
  })

  it("accepts an empty file and a file without namespace", () => {
    expect(ok({})).toEqual({})
    expect(ok({ daemons: { web: { run: "x" } } })).toEqual({ daemons: { web: { run: "x" } } })
  })
})

describe("ConfigFile: rejections", () => {
  it("rejects unknown top-level keys", () => {
    for (const key of ["daemon", "setting", "supervisor", "version"]) {
      const issues = fail({ [key]: {} })
      expect(paths(issues), key).toEqual([key])
      expect(messages(issues)).toContain("is unexpected")
    }
  })

  it("rejects an unknown settings table and an unknown setting", () => {
    expect(paths(fail({ settings: { daemon: {} } }))).toContain("settings.daemon")
    expect(paths(fail({ settings: { supervisor: { stop_timout: "1s" } } }))).toContain(
      "settings.supervisor.stop_timout",
    )
    expect(paths(fail({ general: { intervall: "1s" } }))).toContain("general.intervall")
  })

  it("rejects an invalid namespace", () => {
    expect(messages(fail({ namespace: "my--ns" }))).toContain('invalid namespace "my--ns"')
    expect(messages(fail({ namespace: "my ns" }))).toContain("spaces")
    expect(new Set(paths(fail({ namespace: 1 })))).toEqual(new Set(["namespace"]))
  })

  it("reports a daemon's problems at its key path", () => {
    const issues = fail({ daemons: { api: { run: "x", port: 0, retries: 1 } } })
    expect(paths(issues)).toContain("daemons.api.port")
    expect(paths(issues)).toContain("daemons.api.retries")
  })

  it("rejects a malformed daemon name in a group", () => {
    const issues = fail({ groups: { backend: { daemons: ["db", "a/b/c"] } } })
    expect(paths(issues)).toContain("groups.backend.daemons.1")
    expect(messages(issues)).toContain("more than one slash")
    expect(paths(fail({ groups: { backend: { members: ["db"] } } }))).toContain("groups.backend.members")
  })

  it("requires a slug's dir and checks its daemon name", () => {
    expect(paths(fail({ slugs: { shop: { daemon: "api" } } }))).toContain("slugs.shop.dir")
    expect(messages(fail({ slugs: { shop: { dir: "/x", daemon: "my--api" } } }))).toContain(
      'invalid daemon name "my--api"',
    )
  })

  it("rejects a bad setting value", () => {
    expect(paths(fail({ settings: { supervisor: { stop_timeout: 5 } } }))).toContain(
      "settings.supervisor.stop_timeout",
    )
  })
})

describe("Group and Slug", () => {
  it("Group takes short and qualified daemon IDs", () => {
    expect(decoder(Group).ok({ daemons: ["api", "shop/db"] })).toEqual({ daemons: ["api", "shop/db"] })
    expect(paths(decoder(Group).fail({}))).toContain("daemons")
  })

  it("Slug has a required dir and an optional daemon name", () => {
    expect(decoder(Slug).ok({ dir: "~/x" })).toEqual({ dir: "~/x" })
    expect(decoder(Slug).ok({ dir: "~/x", daemon: "web" })).toEqual({ dir: "~/x", daemon: "web" })
    expect(messages(decoder(Slug).fail({ dir: "~/x", daemon: "ns/web" }))).toContain("slash")
  })
})
