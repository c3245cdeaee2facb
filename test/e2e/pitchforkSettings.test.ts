/**
 * pitchfork's remaining settings through the built CLI against real supervisors:
 * `logs.timestamp` and `logs.timestamp_format` (both `logs` paths: the launcher's text answer and
 * the full CLI), `general.startup_log_timestamps` on the start transcript,
 * `supervisor.port_bump_attempts` for a bare `--bump`, `supervisor.restart_delay` between a
 * restart's stop and start, `supervisor.http_client_timeout` on `ready_http` attempts,
 * `supervisor.orphan_policy = "kill"` with `general.log_file_level` on supervisor.log, and
 * `web.log_lines` in the web UI's log panel.
 */
import { readFileSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import {
  cmdlineOf,
  type DaemonSandbox,
  daemonEntry,
  freePort,
  isAlive,
  makeDaemonSandbox,
  processesOf,
  spawnCli,
  storedLogs,
  supervisorPids,
  waitFor,
} from "./harness.js"
import { type TmuxSession, tmuxCli } from "./tmux.js"
import { launchChromium, loggedInPage, row, WAIT } from "./webPage.js"

const T = 60_000

const hold = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(port, "127.0.0.1", () => resolve(s))
  })
const release = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()))

describe("pitchfork's settings (e2e)", () => {
  let sb: DaemonSandbox
  afterEach(() => sb?.destroy())

  /** A sandbox with the global settings `globalToml` and project `app` of `toml`. */
  const setup = (globalToml: string, toml: string) => {
    sb = makeDaemonSandbox()
    sb.write({ "home/.config/supervisor/config.toml": globalToml })
    return sb.project("app", toml)
  }

  it(
    "logs.timestamp = false leaves the timestamps out; logs.timestamp_format renders them; --no-timestamp wins",
    async () => {
      const dir = setup(
        '[settings.logs]\ntimestamp_format = "%H:%M:%S|"\n',
        '[daemons.say]\nrun = "echo hello; exec sleep 300"\nready_output = "hello"\n',
      )
      expect(sb.cli(["start", "say"], dir).status).toBe(0)
      await waitFor("the line stored", async () => (await storedLogs(sb.stateDir, "app/say")).length >= 1)
      // the launcher's quick path leaves a format of the CLI's to the CLI
      const formatted = sb.cli(["logs", "say"], dir)
      expect(formatted.status, formatted.stderr).toBe(0)
      expect(formatted.stdout).toMatch(/^\d\d:\d\d:\d\d\| hello\n$/)
      // the full CLI (a filter) renders them too
      const filtered = sb.cli(["logs", "say", "--grep", "hel"], dir)
      expect(filtered.stdout).toMatch(/^\d\d:\d\d:\d\d\| hello\n$/)
      expect(sb.cli(["logs", "say", "--no-timestamp"], dir).stdout).toBe("hello\n")

      // off in the project's file (the CLI reads it there): none, on both paths
      writeFileSync(
        join(dir, "supervisor.toml"),
        `${readFileSync(join(dir, "supervisor.toml"), "utf8")}\n[settings.logs]\ntimestamp = false\n`,
      )
      const plain = sb.cli(["logs", "say"], dir)
      expect(plain.stderr).not.toContain("has no effect")
      expect(plain.stdout).toBe("hello\n")
      expect(sb.cli(["logs", "say", "--grep", "hel"], dir).stdout).toBe("hello\n")
      // the variable wins over the files
      const env = { ...sb.env, SUPERVISOR_LOG_TIMESTAMP: "true", SUPERVISOR_LOG_TIMESTAMP_FORMAT: "%F" }
      expect(sb.cli(["logs", "say"], dir, env).stdout).toMatch(/^\d{4}-\d\d-\d\d hello\n$/)
    },
    T,
  )

  it(
    "general.startup_log_timestamps puts HH:MM:SS before each line of the start transcript",
    () => {
      const dir = setup(
        "[settings.general]\nstartup_log_timestamps = true\n",
        '[daemons.web]\nrun = "echo up; exec sleep 300"\nready_output = "up"\n',
      )
      const r = sb.cli(["start", "web"], dir)
      expect(r.status, r.stderr).toBe(0)
      const lines = r.stdout.split("\n").filter((l) => l.includes("app/web"))
      expect(
        lines.some((l) => /^\d\d:\d\d:\d\d app\/web waiting for/.test(l)),
        r.stdout,
      ).toBe(true)
      expect(
        lines.some((l) => /^\d\d:\d\d:\d\d .*app\/web is running/.test(l)),
        r.stdout,
      ).toBe(true)
      // with the supervisor running (the launcher's own start otherwise): stamped too
      expect(sb.cli(["stop", "web"], dir).status).toBe(0)
      const again = sb.cli(["start", "web"], dir)
      expect(again.status, again.stderr).toBe(0)
      expect(again.stdout).toMatch(/^\d\d:\d\d:\d\d .*app\/web is running/m)
      // off (the default): the lines as before
      const restarted = sb.cli(["restart", "web"], dir, {
        ...sb.env,
        SUPERVISOR_STARTUP_LOG_TIMESTAMPS: "false",
      })
      expect(restarted.status, restarted.stderr).toBe(0)
      expect(restarted.stdout).toMatch(/^\S*\s*app\/web is running/m)
      expect(restarted.stdout).not.toMatch(/^\d\d:\d\d:\d\d /m)
    },
    T,
  )

  it(
    "supervisor.port_bump_attempts: a bare --bump shifts at most that many times",
    async () => {
      const dir = setup(
        "[settings.supervisor]\nport_bump_attempts = 1\n",
        '[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0.1\n',
      )
      let base = 0
      let held: Array<net.Server> = []
      // three consecutive ports, the first two held here
      for (;;) {
        base = await freePort()
        try {
          held = [await hold(base), await hold(base + 1)]
          // the third one must be free for the second start
          await release(await hold(base + 2))
          break
        } catch {
          for (const s of held) await release(s)
          held = []
        }
      }
      try {
        const one = sb.cli(["start", "web", "--expected-port", String(base), "--bump"], dir)
        expect(one.status).toBe(1)
        expect(one.stderr).toContain("the next 1 offsets are all in use")
        // the variable raises it: the third port is free
        const env = { ...sb.env, SUPERVISOR_PORT_BUMP_ATTEMPTS: "5" }
        const two = sb.cli(["start", "web", "--expected-port", String(base), "--bump"], dir, env)
        expect(two.status, two.stderr).toBe(0)
        expect(two.stdout).toContain(`port ${base + 2}`)
      } finally {
        for (const s of held) await release(s)
      }
    },
    T,
  )

  it(
    "supervisor.restart_delay: a restart starts the new process that long after the old one ended",
    async () => {
      const dir = setup(
        '[settings.supervisor]\nrestart_delay = "1500ms"\n',
        `[daemons.timed]\nrun = "node timed.js"\nready_output = "started"\n`,
      )
      // each start and each end of the process, in ms, one per line
      writeFileSync(
        join(dir, "timed.js"),
        `const fs = require("node:fs")
fs.appendFileSync("times", "start " + Date.now() + "\\n")
process.on("SIGTERM", () => { fs.appendFileSync("times", "end " + Date.now() + "\\n"); process.exit(0) })
console.log("started")
setInterval(() => {}, 1000)
`,
      )
      expect(sb.cli(["start", "timed"], dir).status).toBe(0)
      const r = sb.cli(["restart", "timed"], dir)
      expect(r.status, r.stderr).toBe(0)
      const times = readFileSync(join(dir, "times"), "utf8").trim().split("\n")
      expect(times.map((t) => t.split(" ")[0])).toEqual(["start", "end", "start"])
      const [, end, start] = times.map((t) => Number(t.split(" ")[1]))
      expect(start! - end!).toBeGreaterThanOrEqual(1500)
    },
    T,
  )

  it(
    "supervisor.http_client_timeout: a ready_http attempt that gets no answer in time is given up, the next one counts",
    async () => {
      const port = await freePort()
      const dir = setup(
        '[settings.supervisor]\nhttp_client_timeout = "300ms"\n',
        `[daemons.slow]\nrun = "node slow.js"\nready_http = "http://127.0.0.1:${port}/"\n`,
      )
      // answers its first request after 3 s (within the default 5 s of an attempt), every later
      // one at once; counts them in "requests"
      writeFileSync(
        join(dir, "slow.js"),
        `const fs = require("node:fs")
let n = 0
require("node:http").createServer((req, res) => {
  n++
  fs.appendFileSync("requests", n + "\\n")
  if (n === 1) setTimeout(() => res.end("late"), 3000)
  else res.end("ok")
}).listen(${port}, "127.0.0.1")
`,
      )
      const requests = () => readFileSync(join(dir, "requests"), "utf8").trim().split("\n").length
      const r = sb.cli(["start", "slow"], dir)
      expect(r.status, r.stderr).toBe(0)
      // the late first answer was not waited for
      expect(requests()).toBeGreaterThanOrEqual(2)

      // the default (5 s): the first answer, late as it is, makes it ready
      expect(sb.cli(["supervisor", "stop"], dir).status).toBe(0)
      writeFileSync(join(sb.home, ".config/supervisor/config.toml"), "")
      writeFileSync(join(dir, "requests"), "")
      const again = sb.cli(["start", "slow"], dir)
      expect(again.status, again.stderr).toBe(0)
      expect(requests()).toBe(1)
    },
    T,
  )

  it(
    'supervisor.orphan_policy = "kill" stops what a dead supervisor left running; general.log_file_level governs supervisor.log',
    async () => {
      const dir = setup("", '[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0.1\n')
      const supervisorLog = join(sb.stateDir, "logs", "supervisor.log")
      const crash = async () => {
        const [supervisor] = supervisorPids(sb.stateDir)
        process.kill(supervisor!, "SIGKILL")
        await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
      }
      expect(sb.cli(["start", "web"], dir).status).toBe(0)
      const first = (await daemonEntry(sb.stateDir, "app/web"))!.pid!
      await crash()

      // adopted by the next one; its info line is left out of supervisor.log at level warn
      const quiet = { ...sb.env, SUPERVISOR_LOG_FILE_LEVEL: "warn" }
      const before = readFileSync(supervisorLog, "utf8").length
      expect(sb.cli(["status", "web"], dir, quiet).status).toBe(0)
      expect((await daemonEntry(sb.stateDir, "app/web"))?.pid).toBe(first)
      expect(isAlive(first)).toBe(true)
      expect(readFileSync(supervisorLog, "utf8").slice(before)).not.toContain("adopted app/web")
      await crash()

      // killed by the next one (level info: the lines say so)
      const kill = { ...sb.env, SUPERVISOR_ORPHAN_POLICY: "kill" }
      expect(sb.cli(["status", "web"], dir, kill).status).toBe(0)
      await waitFor("the orphan to be stopped", () => !isAlive(first))
      const entry = await waitFor("app/web stopped", async () => {
        const e = await daemonEntry(sb.stateDir, "app/web")
        return e?.status.type === "stopped" ? e : undefined
      })
      expect(entry.pid ?? null).toBeNull()
      const log = readFileSync(supervisorLog, "utf8")
      expect(log).toContain("adopted app/web")
      expect(log).toContain('stopping app/web: settings.supervisor.orphan_policy is "kill"')
    },
    T,
  )
})

describe("general.log_level and tui.refresh_rate (e2e)", () => {
  let sb: DaemonSandbox
  let tui: TmuxSession | undefined
  afterEach(() => {
    tui?.kill()
    sb?.destroy()
  })

  it(
    "general.log_level governs the log of a supervisor in the foreground (a pipe)",
    async () => {
      sb = makeDaemonSandbox()
      const dir = sb.project("app", '[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0.1\n')
      expect(sb.cli(["start", "web"], dir).status).toBe(0)
      const pid = (await daemonEntry(sb.stateDir, "app/web"))!.pid!
      const crash = async () => {
        const [supervisor] = supervisorPids(sb.stateDir)
        process.kill(supervisor!, "SIGKILL")
        await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
      }
      /** `supervisor run` in the foreground until it listens: all it printed. */
      const foreground = async (env: Record<string, string>) => {
        const run = spawnCli(["supervisor", "run"], { cwd: dir, env: { ...sb.env, ...env } })
        await waitFor("the supervisor to listen", () => run.stderr().includes("listening on"))
        // asked of the new supervisor (the state file still holds the pid its predecessor wrote)
        await waitFor("the daemon adopted", async () => {
          const listed = await sb.cliAsync(["list", "--json"], dir)
          if (listed.status !== 0) return false
          const rows = JSON.parse(listed.stdout) as Array<{
            id: { qualified: string }
            pid: number | null
            status: { type: string }
          }>
          return rows.some(
            (r) => r.id.qualified === "app/web" && r.pid === pid && r.status.type === "running",
          )
        })
        return `${run.stdout()}${run.stderr()}`
      }
      await crash()
      expect(await foreground({ SUPERVISOR_GENERAL_LOG_LEVEL: "warn" })).not.toContain("adopted app/web")
      await crash()
      expect(await foreground({})).toContain(`adopted app/web (pid ${pid})`)
    },
    T,
  )

  it(
    "tui.refresh_rate is the dashboard's refresh when --interval is not given",
    async () => {
      sb = makeDaemonSandbox()
      sb.write({ "home/.config/supervisor/config.toml": '[settings.tui]\nrefresh_rate = "2s"\n' })
      const dir = sb.project("app", '[daemons.web]\nrun = "exec sleep 300"\n')
      /** The `--interval-ms` the dashboard process was given. */
      const intervalOf = (args: ReadonlyArray<string>) => {
        tui = tmuxCli(`sv-settings-tui-${process.pid}`, args, { cwd: dir, env: sb.env })
        return waitFor("the dashboard process", () => {
          for (const p of processesOf(sb.stateDir)) {
            const argv = cmdlineOf(p)
            const at = argv.indexOf("--interval-ms")
            if (argv.some((a) => a.endsWith("tui.mjs")) && at >= 0) return argv[at + 1]
          }
          return undefined
        })
      }
      expect(await intervalOf(["tui"])).toBe("2000")
      tui?.kill()
      await waitFor("the dashboard to end", () =>
        processesOf(sb.stateDir).every((p) => !cmdlineOf(p).some((a) => a.endsWith("tui.mjs"))),
      )
      expect(await intervalOf(["tui", "--interval", "0.5"])).toBe("500")
    },
    T,
  )
})

describe("web.log_lines (e2e, browser)", () => {
  let sb: DaemonSandbox
  let browser: Browser
  let url: string
  let token: string
  beforeAll(async () => {
    sb = makeDaemonSandbox()
    sb.write({ "home/.config/supervisor/config.toml": "[settings.web]\nlog_lines = 3\n" })
    const dir = sb.project(
      "app",
      '[daemons.web]\nrun = "for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; done; exec sleep 300"\nready_output = "line 10"\n',
    )
    const port = await freePort()
    expect(sb.cli(["supervisor", "start", "--web-port", String(port)], dir).status).toBe(0)
    url = `http://127.0.0.1:${port}/`
    token = sb.cli(["supervisor", "token"], dir).stdout.trim()
    expect(sb.cli(["start", "web"], dir).status).toBe(0)
    await waitFor("ten lines stored", async () => (await storedLogs(sb.stateDir, "app/web")).length >= 10)
    browser = await launchChromium()
  }, T)
  afterAll(async () => {
    await browser?.close()
    sb?.destroy()
  })

  it(
    "the log panel opens with the last log_lines lines",
    async () => {
      const page = await loggedInPage(browser, url, token)
      await row(page, "app/web").locator(".idlink").click()
      const messages = page.locator("#log-lines .log-line .msg")
      await page.locator("#log-lines .msg", { hasText: "line 10" }).waitFor({ timeout: WAIT })
      expect(await messages.allTextContents()).toEqual(["line 8", "line 9", "line 10"])
      await page.context().close()
    },
    T,
  )
})
