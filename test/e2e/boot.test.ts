/**
 * `supervisor boot enable|status|disable` in a temporary XDG_CONFIG_HOME, and
 * `supervisor supervisor run --boot` starting exactly the boot_start daemons.
 */
import { spawnSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import {
  apiGet,
  apiPost,
  BIN,
  copyInstall,
  type DaemonEntry,
  type DaemonSandbox,
  makeDaemonSandbox,
  runCli,
  spawnCli,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let env: Record<string, string>
let unit: string
let link: string
beforeEach(() => {
  sb = makeDaemonSandbox()
  const config = join(sb.root, "xdg-config")
  // a PATH without systemctl (the CLI runs by absolute path: it needs none)
  const bin = join(sb.root, "bin")
  mkdirSync(bin)
  // a user unit even when the tests run as root
  env = { ...sb.env, XDG_CONFIG_HOME: config, PATH: bin, SUPERVISOR_BOOT_SCOPE: "user" }
  unit = join(config, "systemd", "user", "devsupervisor.service")
  link = join(config, "systemd", "user", "default.target.wants", "devsupervisor.service")
})
afterEach(() => sb.destroy(), T)

const boot = (...args: Array<string>) => runCli(["boot", ...args], { cwd: sb.root, env })

describe.skipIf(process.platform !== "linux")("supervisor boot (systemd user unit)", () => {
  it(
    "enable writes and links the unit running this CLI; without systemctl it says how to finish; status; disable",
    () => {
      const before = boot("status", "--json")
      expect(before.status, before.stderr).toBe(0)
      expect(JSON.parse(before.stdout)).toMatchObject({
        manager: "systemd",
        scope: "user",
        enabled: false,
        file: unit,
      })
      expect(boot("status").stdout).toContain("boot: disabled")

      const enabled = boot("enable")
      expect(enabled.status, enabled.stderr).toBe(0)
      expect(enabled.stdout).toContain("✓ boot enabled (systemd user unit)")
      expect(enabled.stdout).toContain(
        "systemctl is not on PATH: to finish by hand, run `systemctl --user daemon-reload`",
      )
      const text = readFileSync(unit, "utf8")
      expect(text).toContain(`ExecStart=${process.execPath} ${realpathSync(BIN)} supervisor run --boot\n`)
      expect(text).toContain(`Environment=SUPERVISOR_STATE_DIR=${sb.stateDir}\n`)
      expect(text).toContain("WantedBy=default.target")
      expect(lstatSync(link).isSymbolicLink()).toBe(true)
      expect(readlinkSync(link)).toBe(unit)

      const status = boot("status")
      expect(status.stdout).toContain("boot: enabled (systemd user unit)")
      expect(status.stdout).toContain(`file  ${unit}`)
      expect(status.stdout).not.toContain("stale")
      expect(JSON.parse(boot("status", "--json").stdout)).toMatchObject({ enabled: true, stale: [] })

      const disabled = boot("disable", "--json")
      expect(disabled.status, disabled.stderr).toBe(0)
      expect(JSON.parse(disabled.stdout)).toMatchObject({
        action: "disable",
        enabled: false,
        removed: [link, unit],
      })
      expect(existsSync(unit) || existsSync(link)).toBe(false)
      expect(boot("status").stdout).toContain("boot: disabled")
    },
    T,
  )

  it(
    "a systemctl on PATH is called with `--user daemon-reload` on enable and disable",
    () => {
      const calls = join(sb.root, "systemctl.calls")
      writeFileSync(join(env.PATH!, "systemctl"), `#!/bin/sh\necho "$@" >> '${calls}'\n`, { mode: 0o755 })
      const enabled = boot("enable", "--json")
      expect(enabled.status, enabled.stderr).toBe(0)
      expect(JSON.parse(enabled.stdout).daemon_reload).toMatchObject({ ran: true, ok: true })
      expect(readFileSync(calls, "utf8")).toBe("--user daemon-reload\n")
      expect(boot("enable").stdout).toContain("systemctl --user daemon-reload: done")
      expect(boot("disable").status).toBe(0)
      expect(readFileSync(calls, "utf8")).toBe("--user daemon-reload\n".repeat(3))
    },
    T,
  )

  it(
    "a unit written by a CLI that is gone is reported stale by status and rewritten by enable",
    () => {
      const other = join(sb.root, "old-install")
      const dist = copyInstall(other)
      // another install of the CLI enables boot, then goes away
      const cli = join(dist, "supervisor.cjs")
      const written = spawnSync(process.execPath, [cli, "boot", "enable"], {
        cwd: sb.root,
        env,
        encoding: "utf8",
      })
      expect(written.status, written.stderr).toBe(0)
      const gone = realpathSync(cli)
      expect(readFileSync(unit, "utf8")).toContain(`${gone} supervisor run --boot`)
      rmSync(other, { recursive: true, force: true })

      const status = boot("status")
      expect(status.stdout).toContain(
        `stale: its CLI ${gone} no longer exists (this one is ${realpathSync(BIN)})`,
      )
      expect(status.stdout).toContain("`supervisor boot enable` rewrites it")
      const rewritten = boot("enable")
      expect(rewritten.stdout).toContain("rewritten: its CLI")
      expect(readFileSync(unit, "utf8")).toContain(`${realpathSync(BIN)} supervisor run --boot`)
      expect(JSON.parse(boot("status", "--json").stdout)).toMatchObject({ enabled: true, stale: [] })
    },
    T,
  )
})

describe.skipIf(process.platform !== "linux")(
  "supervisor boot and the old unit name supervisor.service",
  () => {
    it(
      "supervisord's supervisor.service is left alone; ours under that name is shown by status, replaced by enable",
      () => {
        const dir = join(sb.root, "xdg-config", "systemd", "user")
        const oldUnit = join(dir, "supervisor.service")
        const oldLink = join(dir, "default.target.wants", "supervisor.service")
        mkdirSync(join(dir, "default.target.wants"), { recursive: true })
        const theirs =
          "[Unit]\nDescription=Supervisor process control system\n[Service]\nExecStart=/usr/bin/supervisord -n\n"
        writeFileSync(oldUnit, theirs)
        symlinkSync(oldUnit, oldLink)
        expect(JSON.parse(boot("status", "--json").stdout)).toMatchObject({
          written: false,
          foreign: [],
          stale: [],
        })
        const enabled = boot("enable")
        expect(enabled.status, enabled.stderr).toBe(0)
        expect(readlinkSync(link)).toBe(unit)
        expect(boot("disable").status).toBe(0)
        expect(readFileSync(oldUnit, "utf8")).toBe(theirs)
        expect(readlinkSync(oldLink)).toBe(oldUnit)

        // ours, as an earlier version wrote it: marked on its first line, under the old name
        const ours = [
          "# Written by `supervisor boot enable`; removed by `supervisor boot disable`.",
          "[Service]",
          `ExecStart=${process.execPath} ${realpathSync(BIN)} supervisor run --boot`,
          "[Install]",
          "WantedBy=default.target",
          "",
        ].join("\n")
        writeFileSync(oldUnit, ours)
        const status = boot("status")
        expect(status.stdout).toContain("boot: enabled (systemd user unit)")
        expect(status.stdout).toContain(`file  ${oldUnit}`)
        expect(status.stdout).toContain("stale: it has the old name supervisor.service")
        const moved = boot("enable")
        expect(moved.status, moved.stderr).toBe(0)
        expect(moved.stdout).toContain(`removed  ${oldLink}`)
        expect(moved.stdout).toContain(`removed  ${oldUnit}`)
        expect(existsSync(oldUnit) || existsSync(oldLink)).toBe(false)
        expect(readlinkSync(link)).toBe(unit)
        expect(JSON.parse(boot("status", "--json").stdout)).toMatchObject({
          file: unit,
          enabled: true,
          stale: [],
        })

        // an old-named unit of ours only: disable removes it
        rmSync(unit)
        rmSync(link)
        writeFileSync(oldUnit, ours)
        const disabled = boot("disable", "--json")
        expect(disabled.status, disabled.stderr).toBe(0)
        expect(JSON.parse(disabled.stdout)).toMatchObject({ removed: [oldUnit], written: false })
        expect(existsSync(oldUnit)).toBe(false)
      },
      T,
    )
  },
)

const GLOBAL = `
[daemons.gboot]
run = "exec sleep 300"
ready_delay = 0
boot_start = true
depends = ["gdep"]

[daemons.gdep]
run = "exec sleep 300"
ready_cmd = "test -f GO_FILE"

[daemons.gother]
run = "exec sleep 300"
ready_delay = 0
`

const PROJECT = `
[daemons.pboot]
run = "exec sleep 300"
ready_delay = 0
boot_start = true
depends = ["pdep"]

[daemons.pdep]
run = "exec sleep 300"
ready_delay = 0

[daemons.pother]
run = "exec sleep 300"
ready_delay = 0
`

describe("supervisor supervisor run --boot", () => {
  it(
    "starts once the boot_start daemons of the global config and of a registered project, with their dependencies, not the others; the API answers meanwhile",
    async () => {
      const go = join(sb.root, "go")
      sb.write({ "home/.config/supervisor/config.toml": GLOBAL.replace("GO_FILE", go) })
      const app = sb.project("app", PROJECT)
      // register the project with a supervisor, then stop it: the registration is kept
      expect(sb.cli(["supervisor", "start"], sb.root).status).toBe(0)
      expect(await apiPost(sb.stateDir, "/api/namespaces", { dir: app })).toMatchObject({ ok: true })
      expect(sb.cli(["supervisor", "stop"], sb.root).status).toBe(0)
      await waitFor("the supervisor to be gone", () => supervisorPids(sb.stateDir).length === 0)

      const host = spawnCli(["supervisor", "run", "--boot"], { cwd: "/", env: sb.env })
      try {
        await waitFor("the supervisor to listen", () => host.stderr().includes("listening on"))
        // global/gdep is not ready until `go` exists: the boot start waits, the API does not
        const listed = await waitFor("the API to answer", () =>
          apiGet<Array<DaemonEntry>>(sb.stateDir, "/api/daemons"),
        )
        expect(listed.find((d) => d.id.qualified === "global/gboot")?.status.type ?? "available").not.toBe(
          "running",
        )
        writeFileSync(go, "")
        const running = (entries: ReadonlyArray<DaemonEntry>) =>
          entries
            .filter((d) => d.status.type === "running")
            .map((d) => d.id.qualified)
            .sort()
        const all = await waitFor(
          "the boot daemons to run",
          async () => {
            const entries = (await apiGet<Array<DaemonEntry>>(sb.stateDir, "/api/daemons")) ?? []
            return running(entries).length >= 4 ? entries : undefined
          },
          { timeout: 20_000 },
        )
        expect(running(all)).toEqual(["app/pboot", "app/pdep", "global/gboot", "global/gdep"])
        await waitFor(
          "the boot lines in the supervisor's log",
          () =>
            host.stderr().includes("boot: global/gboot: started") &&
            host.stderr().includes("boot: app/pboot: started"),
        )
        expect(host.stderr()).toContain("boot: starting ")
        // one Run command of the resolved definitions, sent to the supervisor's one handler
        expect(await commandCount(sb.stateDir, "Run", "boot")).toBe(1)
        for (const other of ["global/gother", "app/pother"])
          expect(all.find((d) => d.id.qualified === other)?.status.type ?? "not listed").not.toBe("running")
      } finally {
        host.child.kill("SIGTERM")
        await host.exited
      }
    },
    T,
  )

  it(
    "a project of the user config's [namespaces] table has its boot_start daemons started too",
    async () => {
      const shop = sb.project("shop", PROJECT)
      sb.write({
        "home/.config/supervisor/config.toml": `[namespaces]\nshop = { dir = ${JSON.stringify(shop)} }\n`,
      })
      const started = sb.cli(["supervisor", "start", "--boot"], sb.root)
      expect(started.status, started.stderr).toBe(0)
      const running = await waitFor(
        "shop/pboot to run",
        async () => {
          const list = (await apiGet<Array<DaemonEntry>>(sb.stateDir, "/api/daemons")) ?? []
          const ids = list.filter((d) => d.status.type === "running").map((d) => d.id.qualified)
          return ids.includes("shop/pboot") ? ids.sort() : undefined
        },
        { timeout: 20_000 },
      )
      expect(running).toEqual(["shop/pboot", "shop/pdep"])
    },
    T,
  )

  it(
    "`supervisor supervisor start --boot` starts the boot_start daemons of the background supervisor",
    async () => {
      sb.write({ "home/.config/supervisor/config.toml": GLOBAL.replace("GO_FILE", BIN) })
      const started = sb.cli(["supervisor", "start", "--boot"], sb.root)
      expect(started.status, started.stderr).toBe(0)
      const entries = await waitFor(
        "global/gboot to run",
        async () => {
          const list = (await apiGet<Array<DaemonEntry>>(sb.stateDir, "/api/daemons")) ?? []
          return list.some((d) => d.id.qualified === "global/gboot" && d.status.type === "running")
            ? list
            : undefined
        },
        { timeout: 20_000 },
      )
      expect(
        entries
          .filter((d) => d.status.type === "running")
          .map((d) => d.id.qualified)
          .sort(),
      ).toEqual(["global/gboot", "global/gdep"])
    },
    T,
  )
})
