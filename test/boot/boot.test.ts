import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type BootContext, bootStatus, disableBoot, enableBoot, findOnPath } from "../../src/boot/boot.js"
import { bootLocation, systemdUnit } from "../../src/boot/files.js"

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-boot-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A node and a CLI that exist, in the temp dir. */
const files = () => {
  const node = nodePath.join(dir, "bin", "node")
  const cli = nodePath.join(dir, "dist", "supervisor.cjs")
  for (const f of [node, cli]) {
    fs.mkdirSync(nodePath.dirname(f), { recursive: true })
    fs.writeFileSync(f, "")
  }
  return { node, cli }
}

/** A systemctl that appends its arguments to a file. */
const fakeSystemctl = (status = 0) => {
  const bin = nodePath.join(dir, "fakebin")
  fs.mkdirSync(bin, { recursive: true })
  const script = nodePath.join(bin, "systemctl")
  fs.writeFileSync(
    script,
    `#!/bin/sh\necho "$@" >> ${nodePath.join(dir, "systemctl.log")}\nexit ${status}\n`,
    {
      mode: 0o755,
    },
  )
  return script
}
const systemctlCalls = () => {
  const log = nodePath.join(dir, "systemctl.log")
  return fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []
}

const supervisordUnit =
  "[Unit]\nDescription=Supervisor process control system for UNIX\n[Service]\nExecStart=/usr/bin/supervisord -n\n"

const linuxContext = (overrides: Partial<BootContext> = {}, isRoot = false): BootContext => {
  const { node, cli } = files()
  const location = bootLocation({
    platform: "linux",
    env: { XDG_CONFIG_HOME: nodePath.join(dir, "config") },
    home: nodePath.join(dir, "home"),
    isRoot,
    systemDir: nodePath.join(dir, "etc", "systemd", "system"),
  })!
  return {
    location,
    command: {
      node,
      cli,
      env: { PATH: "/usr/bin" },
      log: nodePath.join(dir, "state", "logs", "supervisor.log"),
    },
    systemctl: undefined,
    ...overrides,
  }
}

describe("boot enable, status, disable (systemd)", () => {
  it("status: disabled before anything is written", () => {
    const s = bootStatus(linuxContext())
    expect(s).toMatchObject({ manager: "systemd", scope: "user", written: false, enabled: false, stale: [] })
  })

  it("enable writes and links the unit; without systemctl it says how to finish by hand", async () => {
    const ctx = linuxContext()
    const change = await Effect.runPromise(enableBoot(ctx))
    expect(fs.readFileSync(ctx.location.file, "utf8")).toContain(
      `ExecStart=${ctx.command.node} ${ctx.command.cli} supervisor run --boot`,
    )
    expect(ctx.location.manager === "systemd" && fs.readlinkSync(ctx.location.link)).toBe(ctx.location.file)
    expect(change).toMatchObject({ action: "enable", enabled: true, changed: true, rewritten: [] })
    expect(change.daemon_reload).toMatchObject({ ran: false, command: "systemctl --user daemon-reload" })
    expect(change.next_step).toContain(
      "systemctl is not on PATH: to finish by hand, run `systemctl --user daemon-reload`",
    )
    expect(bootStatus(ctx)).toMatchObject({
      enabled: true,
      node: ctx.command.node,
      cli: ctx.command.cli,
      stale: [],
    })
    // the log's directory exists for systemd's `append:` at the first boot
    expect(fs.statSync(nodePath.dirname(ctx.command.log)).isDirectory()).toBe(true)
  })

  it("enable runs `systemctl --user daemon-reload` when systemctl is there; again it changes nothing", async () => {
    const ctx = linuxContext({ systemctl: fakeSystemctl() })
    const first = await Effect.runPromise(enableBoot(ctx))
    expect(first.daemon_reload).toMatchObject({ ran: true, ok: true })
    expect(systemctlCalls()).toEqual(["--user daemon-reload"])
    const again = await Effect.runPromise(enableBoot(ctx))
    expect(again.changed).toBe(false)
  })

  it("a failing daemon-reload is reported with what to run again", async () => {
    const change = await Effect.runPromise(enableBoot(linuxContext({ systemctl: fakeSystemctl(1) })))
    expect(change.daemon_reload).toMatchObject({ ran: true, ok: false })
    expect(change.next_step).toContain("`systemctl --user daemon-reload` failed")
  })

  it("as root: /etc/systemd/system, multi-user.target.wants and `systemctl daemon-reload`", async () => {
    const ctx = linuxContext({ systemctl: fakeSystemctl() }, true)
    const change = await Effect.runPromise(enableBoot(ctx))
    expect(change).toMatchObject({
      scope: "system",
      file: nodePath.join(dir, "etc", "systemd", "system", "devsupervisor.service"),
      link: nodePath.join(
        dir,
        "etc",
        "systemd",
        "system",
        "multi-user.target.wants",
        "devsupervisor.service",
      ),
      enabled: true,
    })
    expect(systemctlCalls()).toEqual(["daemon-reload"])
  })

  it("a unit whose node or CLI is gone or another is stale: status says so, enable rewrites it", async () => {
    const ctx = linuxContext()
    await Effect.runPromise(enableBoot(ctx))
    const gone = nodePath.join(dir, "old", "supervisor.cjs")
    const other = files().node.replace("node", "node-other")
    fs.writeFileSync(other, "")
    fs.writeFileSync(
      ctx.location.file,
      fs
        .readFileSync(ctx.location.file, "utf8")
        .replace(`${ctx.command.node} ${ctx.command.cli}`, `${other} ${gone}`),
    )
    const stale = bootStatus(ctx).stale
    expect(stale).toEqual([
      `its node ${other} is not this one (${ctx.command.node})`,
      `its CLI ${gone} no longer exists (this one is ${ctx.command.cli})`,
    ])
    const change = await Effect.runPromise(enableBoot(ctx))
    expect(change).toMatchObject({ changed: true, rewritten: stale, stale: [], cli: ctx.command.cli })
  })

  it("a unit written but not linked is disabled; enable links it", async () => {
    const ctx = linuxContext()
    await Effect.runPromise(enableBoot(ctx))
    if (ctx.location.manager === "systemd") fs.rmSync(ctx.location.link)
    expect(bootStatus(ctx)).toMatchObject({ written: true, enabled: false })
    expect(await Effect.runPromise(enableBoot(ctx))).toMatchObject({ enabled: true, changed: true })
  })

  it("disable removes the link and the unit and reloads; twice removes nothing", async () => {
    const ctx = linuxContext({ systemctl: fakeSystemctl() })
    await Effect.runPromise(enableBoot(ctx))
    const change = await Effect.runPromise(disableBoot(ctx))
    expect(ctx.location.manager === "systemd" && change.removed).toEqual([
      ctx.location.manager === "systemd" ? ctx.location.link : "",
      ctx.location.file,
    ])
    expect(fs.existsSync(ctx.location.file)).toBe(false)
    expect(change).toMatchObject({ enabled: false, written: false, changed: true })
    expect(systemctlCalls()).toEqual(["--user daemon-reload", "--user daemon-reload"])
    const again = await Effect.runPromise(disableBoot(ctx))
    expect(again).toMatchObject({ changed: false, removed: [] })
    expect(systemctlCalls()).toHaveLength(2)
  })

  it("as root, supervisord's supervisor.service and its link are none of ours: enable and disable leave them alone", async () => {
    const ctx = linuxContext({ systemctl: fakeSystemctl() }, true)
    if (ctx.location.manager !== "systemd") throw new Error("systemd expected")
    // what Debian's supervisor package installs and enables (its unit in /etc, or in /lib and linked)
    const theirs = supervisordUnit
    const { old } = ctx.location
    fs.mkdirSync(nodePath.dirname(old.link), { recursive: true })
    fs.writeFileSync(old.file, theirs)
    fs.symlinkSync("/lib/systemd/system/supervisor.service", old.link)
    expect(bootStatus(ctx)).toMatchObject({ written: false, enabled: false, foreign: [], stale: [] })
    const enabled = await Effect.runPromise(enableBoot(ctx))
    expect(enabled).toMatchObject({ enabled: true, foreign: [], removed: [], rewritten: [] })
    expect(fs.readlinkSync(ctx.location.link)).toBe(ctx.location.file)
    expect(bootStatus(ctx)).toMatchObject({ enabled: true, stale: [] })
    const disabled = await Effect.runPromise(disableBoot(ctx))
    expect(disabled.removed).toEqual([ctx.location.link, ctx.location.file])
    expect(fs.readFileSync(old.file, "utf8")).toBe(theirs)
    expect(fs.readlinkSync(old.link)).toBe("/lib/systemd/system/supervisor.service")
  })

  it("another program's unit or link at our unit's path is reported and left alone", async () => {
    const ctx = linuxContext({ systemctl: fakeSystemctl() }, true)
    if (ctx.location.manager !== "systemd") throw new Error("systemd expected")
    const theirs = supervisordUnit
    fs.mkdirSync(nodePath.dirname(ctx.location.link), { recursive: true })
    fs.writeFileSync(ctx.location.file, theirs)
    expect(bootStatus(ctx)).toMatchObject({
      written: false,
      enabled: false,
      foreign: [ctx.location.file],
      stale: [],
    })
    const error = await Effect.runPromise(Effect.flip(enableBoot(ctx)))
    expect(error.message).toBe(
      `${ctx.location.file} is another program's (not written by \`supervisor boot enable\`), left alone: move it away first, or set SUPERVISOR_BOOT_SCOPE=user for a user unit`,
    )
    const kept = await Effect.runPromise(disableBoot(ctx))
    expect(kept).toMatchObject({ removed: [], changed: false })
    expect(fs.readFileSync(ctx.location.file, "utf8")).toBe(theirs)
    // their link, to their unit elsewhere
    fs.rmSync(ctx.location.file)
    fs.symlinkSync("/lib/systemd/system/devsupervisor.service", ctx.location.link)
    expect(bootStatus(ctx).foreign).toEqual([ctx.location.link])
    expect((await Effect.runPromise(Effect.flip(enableBoot(ctx)))).message).toContain(
      `${ctx.location.link} is another program's`,
    )
    expect(fs.existsSync(ctx.location.file)).toBe(false)
    await Effect.runPromise(disableBoot(ctx))
    expect(fs.readlinkSync(ctx.location.link)).toBe("/lib/systemd/system/devsupervisor.service")
    expect(systemctlCalls()).toEqual([])
  })

  describe("our unit under the old name supervisor.service", () => {
    /** A unit of ours as an earlier version wrote it: the same text, under the old name, linked. */
    const writeOld = (ctx: BootContext, linked = true) => {
      if (ctx.location.manager !== "systemd") throw new Error("systemd expected")
      const { old } = ctx.location
      fs.mkdirSync(nodePath.dirname(old.link), { recursive: true })
      fs.writeFileSync(old.file, systemdUnit(ctx.command, ctx.location.scope))
      if (linked) fs.symlinkSync(old.file, old.link)
      return old
    }
    const renamed =
      "it has the old name supervisor.service, which Debian's supervisor package (supervisord) uses too"

    it("status shows it as the unit in force, stale by its name", () => {
      const ctx = linuxContext()
      const old = writeOld(ctx)
      expect(bootStatus(ctx)).toMatchObject({
        file: old.file,
        link: old.link,
        written: true,
        enabled: true,
        cli: ctx.command.cli,
        foreign: [],
        stale: [renamed],
      })
    })

    it("enable writes the new unit and removes the old one and its link", async () => {
      const ctx = linuxContext({ systemctl: fakeSystemctl() }, true)
      const old = writeOld(ctx)
      const change = await Effect.runPromise(enableBoot(ctx))
      expect(change).toMatchObject({
        file: ctx.location.file,
        enabled: true,
        changed: true,
        rewritten: [renamed],
        removed: [old.link, old.file],
        stale: [],
      })
      expect(change.next_step).toBe(
        "it starts at the next boot; to start it now: systemctl start devsupervisor.service; a supervisor started by the old supervisor.service runs on until `systemctl stop supervisor.service`",
      )
      expect(fs.existsSync(old.file) || fs.existsSync(old.link)).toBe(false)
      expect(ctx.location.manager === "systemd" && fs.readlinkSync(ctx.location.link)).toBe(ctx.location.file)
      expect(systemctlCalls()).toEqual(["daemon-reload"])
    })

    it("disable removes it, unlinked or beside a new one", async () => {
      const ctx = linuxContext()
      const old = writeOld(ctx, false)
      expect(bootStatus(ctx)).toMatchObject({ file: old.file, written: true, enabled: false })
      expect((await Effect.runPromise(disableBoot(ctx))).removed).toEqual([old.file])

      await Effect.runPromise(enableBoot(ctx))
      writeOld(ctx)
      expect(bootStatus(ctx)).toMatchObject({
        file: ctx.location.file,
        enabled: true,
        stale: [`an older unit of ours, ${old.file}, is there too`],
      })
      const change = await Effect.runPromise(disableBoot(ctx))
      expect(ctx.location.manager === "systemd" && change.removed).toEqual([
        ctx.location.manager === "systemd" ? ctx.location.link : "",
        ctx.location.file,
        old.link,
        old.file,
      ])
      expect(bootStatus(ctx)).toMatchObject({ written: false, stale: [] })
    })
  })

  it("a unit that cannot be written fails naming the file and the fix", async () => {
    const ctx = linuxContext()
    // the unit's directory is a file: mkdir fails
    fs.mkdirSync(nodePath.join(dir, "config", "systemd"), { recursive: true })
    fs.writeFileSync(nodePath.join(dir, "config", "systemd", "user"), "")
    const error = await Effect.runPromise(Effect.flip(enableBoot(ctx)))
    expect(error.message).toContain(`cannot write ${ctx.location.file}`)
    expect(error.message).toContain("check the directory's permissions")
  })
})

describe("boot on macOS (launchd)", () => {
  it("enable writes the agent (RunAtLoad) and says how to load it now; disable removes it", async () => {
    const { node, cli } = files()
    const ctx: BootContext = {
      location: bootLocation({
        platform: "darwin",
        env: {},
        home: nodePath.join(dir, "home"),
        isRoot: false,
      })!,
      command: { node, cli, env: {}, log: nodePath.join(dir, "supervisor.log") },
      systemctl: undefined,
    }
    const change = await Effect.runPromise(enableBoot(ctx))
    expect(change).toMatchObject({ manager: "launchd", enabled: true, link: null })
    expect(fs.readFileSync(ctx.location.file, "utf8")).toContain("<key>RunAtLoad</key>\n  <true/>")
    expect(change.next_step).toBe(
      `it starts at your next login; to start it now: launchctl load -w ${ctx.location.file}`,
    )
    expect((await Effect.runPromise(disableBoot(ctx))).removed).toEqual([ctx.location.file])
  })
})

describe("findOnPath", () => {
  it("finds an executable on absolute PATH entries only", () => {
    const script = fakeSystemctl()
    expect(findOnPath("systemctl", `relative:${nodePath.dirname(script)}`)).toBe(script)
    expect(findOnPath("systemctl", "/nonexistent")).toBeUndefined()
    expect(findOnPath("systemctl", undefined)).toBeUndefined()
  })
})
