/**
 * `supervisor supervisor run|start|stop|status` and what survives a restart of
 * the supervisor. A fresh sandbox per test.
 */
import { spawn } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import type { Readable } from "node:stream"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { supervisorNodeFlags } from "../../src/host/nodeFlags.js"
import {
  BIN,
  cmdlineOf,
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  freePort,
  httpAnswer,
  isAlive,
  makeDaemonSandbox,
  spawnCli,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000
const pkg = JSON.parse(readFileSync(resolve(__dirname, "../../package.json"), "utf8")) as { version: string }

const CONFIG = `
[daemons.svc]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.graceful]
run = "trap 'echo bye > graceful.marker; exit 0' TERM; echo armed; while :; do sleep 1; done"
ready_output = "^armed$"
`

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)

beforeEach(() => {
  sb = makeDaemonSandbox()
  proj = sb.project("host", CONFIG)
})
afterEach(() => sb.destroy(), T)

describe("supervisor start | status | stop", () => {
  it(
    "status says it is not running (exit 1); start starts it; status shows pid, version, uptime, socket",
    () => {
      const down = cli("supervisor", "status")
      expect(down.status).toBe(1)
      expect(down.stdout + down.stderr).toMatch(/not running/)
      const downJson = cli("supervisor", "status", "--json")
      expect(downJson.status).toBe(1)
      expect(JSON.parse(downJson.stdout)).toMatchObject({ running: false })

      const up = cli("supervisor", "start")
      expect(up.status, up.stderr).toBe(0)
      expect(up.stdout).toContain("supervisor started")
      const [pid] = supervisorPids(sb.stateDir)
      expect(pid).toBeDefined()

      const socket = join(sb.stateDir, "sock", "api.sock")
      const info = JSON.parse(cli("supervisor", "status", "--json").stdout)
      expect(info).toMatchObject({
        running: true,
        pid,
        version: pkg.version,
        socket,
        state_dir: sb.stateDir,
        web_url: null,
      })
      expect(info.uptime_secs).toBeGreaterThanOrEqual(0)
      expect(statSync(socket).mode & 0o777).toBe(0o600)
      // the background supervisor runs with its memory-saving Node flags (src/host/nodeFlags.ts)
      const argv = cmdlineOf(pid!)
      expect(argv.slice(1, 1 + supervisorNodeFlags.length)).toEqual([...supervisorNodeFlags])
      expect(argv.slice(-2)).toEqual(["supervisor", "run"])
      // the launcher keeps the code cache made under these flags by their first one
      expect(readFileSync(resolve(__dirname, "../../scripts/launcher.cjs"), "utf8")).toContain(
        `process.execArgv.includes("${supervisorNodeFlags[0]}")`,
      )
      const human = cli("supervisor", "status")
      expect(human.status).toBe(0)
      expect(human.stdout).toContain(`supervisor ${pkg.version} is running`)
      expect(human.stdout).toMatch(new RegExp(`pid\\s+${pid}`))
      expect(human.stdout).toContain(socket)

      const again = cli("supervisor", "start")
      expect(again.status).toBe(0)
      expect(again.stdout).toContain("already running")
      expect(supervisorPids(sb.stateDir)).toEqual([pid])
    },
    T,
  )

  it(
    "start --force replaces the supervisor and keeps the daemons running: the new one adopts them",
    async () => {
      expect(cli("supervisor", "start").status).toBe(0)
      const [first] = supervisorPids(sb.stateDir)
      expect(cli("start", "svc", "graceful").status).toBe(0)
      const [svc] = daemonPids(sb.stateDir, "host/svc")
      const r = cli("supervisor", "start", "--force")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("the daemons it ran keep running")
      const pids = supervisorPids(sb.stateDir)
      expect(pids).toHaveLength(1)
      expect(pids[0]).not.toBe(first)
      expect(isAlive(first!)).toBe(false)
      // the same process, running, and the new supervisor can stop it (graceful: SIGTERM, its trap)
      expect(isAlive(svc!)).toBe(true)
      expect((await daemonEntry(sb.stateDir, "host/svc"))?.pid).toBe(svc)
      expect((await daemonEntry(sb.stateDir, "host/graceful"))?.status.type).toBe("running")
      expect(readdirSync(proj)).not.toContain("graceful.marker")
      expect(cli("stop", "svc", "graceful").status).toBe(0)
      await waitFor("svc to be gone", () => !isAlive(svc!))
      expect(readdirSync(proj)).toContain("graceful.marker")
    },
    T,
  )

  it(
    "start --force keeps the web UI's port and path and the API listener's port; a flag changes one",
    async () => {
      const web = await freePort()
      const api = await freePort()
      // the API listener from the settings in the environment of the first start only
      const env = { ...sb.env, SUPERVISOR_API_AUTO_START: "true", SUPERVISOR_API_BIND_PORT: String(api) }
      const up = sb.cli(["supervisor", "start", "--web-port", String(web), "--web-path", "/sv"], proj, env)
      expect(up.status, up.stderr).toBe(0)
      const before = JSON.parse(cli("supervisor", "status", "--json").stdout)
      expect(before).toMatchObject({
        web_url: `http://127.0.0.1:${web}/sv`,
        api_url: `http://127.0.0.1:${api}`,
      })
      // restarted without the flags, and without the setting in its environment
      const r = cli("supervisor", "start", "--force")
      expect(r.status, r.stderr).toBe(0)
      const after = JSON.parse(cli("supervisor", "status", "--json").stdout)
      expect(after.pid).not.toBe(before.pid)
      expect(after).toMatchObject({
        web_url: `http://127.0.0.1:${web}/sv`,
        api_url: `http://127.0.0.1:${api}`,
      })
      const page = await httpAnswer(`http://127.0.0.1:${web}/sv/`)
      expect(page.status).toBe(200)
      expect(page.body).toContain("<html")
      // a flag says otherwise: the web UI moves, the rest is kept
      const other = await freePort()
      expect(cli("supervisor", "start", "--force", "--web-port", String(other)).status).toBe(0)
      const moved = JSON.parse(cli("supervisor", "status", "--json").stdout)
      expect(moved).toMatchObject({
        web_url: `http://127.0.0.1:${other}/sv`,
        api_url: `http://127.0.0.1:${api}`,
      })
      expect((await httpAnswer(`http://127.0.0.1:${other}/sv/`)).status).toBe(200)
    },
    T,
  )

  it(
    "`supervisor web` with the web UI off names the setting by its key",
    () => {
      expect(cli("supervisor", "start").status).toBe(0)
      const r = cli("web")
      expect(r.status).toBe(1)
      expect(r.stderr).toContain("supervisor supervisor start --force --web-port 3120")
      expect(r.stderr).toContain("set settings.web.auto_start = true in ~/.config/supervisor/config.toml")
    },
    T,
  )

  it(
    "stop stops every daemon gracefully, then the supervisor; stopping again says it is not running",
    async () => {
      expect(cli("start", "svc", "graceful").status).toBe(0)
      // the tracked shells and their children
      const daemons = daemonPids(sb.stateDir)
      expect(daemonPids(sb.stateDir, "host/svc")).toHaveLength(1)
      expect(daemonPids(sb.stateDir, "host/graceful").length).toBeGreaterThanOrEqual(1)
      const [pid] = supervisorPids(sb.stateDir)
      const r = cli("supervisor", "stop")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("supervisor stopped")
      expect(isAlive(pid!)).toBe(false)
      for (const d of daemons) expect(isAlive(d)).toBe(false)
      expect(readFileSync(join(proj, "graceful.marker"), "utf8").trim()).toBe("bye")
      const again = cli("supervisor", "stop")
      expect(again.status).toBe(0)
      expect(again.stdout).toContain("not running")
    },
    T,
  )

  it(
    "with settings.supervisor.auto_start = false a command does not start it and says how",
    () => {
      sb.write({ "home/.config/supervisor/config.toml": "[settings.supervisor]\nauto_start = false\n" })
      const r = cli("list")
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/not running.*supervisor supervisor start/)
      expect(supervisorPids(sb.stateDir)).toEqual([])
    },
    T,
  )
})

/** Where each descriptor of a process points (`socket:[123]`, `pipe:[456]`, a path), by number. */
const fdTargets = (pid: number): Array<string> =>
  readdirSync(`/proc/${pid}/fd`)
    .sort((a, b) => Number(a) - Number(b))
    .flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)]
      } catch {
        return []
      }
    })

describe("descriptors of the caller", () => {
  it(
    "neither the auto-started supervisor nor its daemons keep a descriptor the first CLI inherited",
    async () => {
      // A pipe its caller reads to the end (as a CI step would), open in the CLI as fd 100: Node
      // makes its own descriptors up to 15 close-on-exec at start-up, not those above.
      const child = spawn(
        "bash", // dash takes single-digit descriptors only
        ["-c", 'exec 100>&3 3>&-; exec "$0" "$@"', process.execPath, BIN, "start", "svc"],
        {
          cwd: proj,
          env: sb.env,
          stdio: ["ignore", "pipe", "pipe", "pipe"],
        },
      )
      const extra = child.stdio[3] as Readable
      extra.resume()
      const eof = new Promise<void>((resolve) => extra.once("end", () => resolve()))
      let stderr = ""
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        stderr += d
      })
      const status = await new Promise<number | null>((resolve) => child.once("exit", resolve))
      expect(status, stderr).toBe(0)
      // the caller sees the end of its pipe: no process the CLI started holds its write end
      const held = new Promise<string>((resolve) => setTimeout(() => resolve("still held"), 10_000).unref())
      expect(await Promise.race([eof.then(() => "closed"), held])).toBe("closed")
      expect(supervisorPids(sb.stateDir)).toHaveLength(1)
      const [daemon] = daemonPids(sb.stateDir, "host/svc")
      expect(daemon).toBeDefined()
      // `exec sleep`: the daemon has its standard input, output and error, nothing more
      expect(fdTargets(daemon!)).toEqual([
        "/dev/null",
        join(sb.stateDir, "logs", "host--svc.out"),
        join(sb.stateDir, "logs", "host--svc.out"),
      ])
    },
    T,
  )
})

describe("supervisor run (foreground)", () => {
  it(
    "serves the CLI; SIGTERM stops its daemons and it exits 0",
    async () => {
      const fg = spawnCli(["supervisor", "run"], { cwd: proj, env: sb.env })
      try {
        await waitFor("the foreground supervisor to listen", () => fg.stderr().includes("listening on"), {
          timeout: 15_000,
        })
        expect(supervisorPids(sb.stateDir)).toEqual([fg.pid])
        const r = cli("start", "svc", "graceful")
        expect(r.status, r.stderr).toBe(0)
        // no second supervisor was auto-started
        expect(supervisorPids(sb.stateDir)).toEqual([fg.pid])
        expect(JSON.parse(cli("supervisor", "status", "--json").stdout).pid).toBe(fg.pid)
        const daemons = daemonPids(sb.stateDir)
        expect(daemonPids(sb.stateDir, "host/svc")).toHaveLength(1)
        expect(daemonPids(sb.stateDir, "host/graceful").length).toBeGreaterThanOrEqual(1)

        const second = cli("supervisor", "run")
        expect(second.status).toBe(1)
        expect(second.stderr).toContain("already running")

        fg.child.kill("SIGTERM")
        const end = await fg.exited
        expect(end).toEqual({ code: 0, signal: null })
        for (const d of daemons) expect(isAlive(d), `daemon pid ${d} survived`).toBe(false)
        expect(readFileSync(join(proj, "graceful.marker"), "utf8").trim()).toBe("bye")
        expect(cli("supervisor", "status").status).toBe(1)
      } finally {
        fg.child.kill("SIGKILL")
      }
    },
    T,
  )

  it(
    "-f replaces a running supervisor: it leaves, this one adopts its daemons",
    async () => {
      expect(cli("start", "svc").status).toBe(0)
      const [old] = supervisorPids(sb.stateDir)
      const [daemon] = daemonPids(sb.stateDir, "host/svc")
      const fg = spawnCli(["supervisor", "run", "-f"], { cwd: proj, env: sb.env })
      try {
        await waitFor("the new supervisor to listen", () => fg.stderr().includes("listening on"), {
          timeout: 30_000,
        }).catch((e) => {
          throw new Error(`${e}; its stderr: ${fg.stderr()}`)
        })
        expect(fg.stderr()).toContain("replaced the running supervisor")
        expect(supervisorPids(sb.stateDir)).toEqual([fg.pid])
        expect(isAlive(old!)).toBe(false)
        const entry = JSON.parse(cli("status", "svc", "--json").stdout) as {
          pid: number
          status_text: string
        }
        expect(entry).toMatchObject({ pid: daemon, status_text: "running" })
        fg.child.kill("SIGTERM")
        expect(await fg.exited).toEqual({ code: 0, signal: null })
      } finally {
        fg.child.kill("SIGKILL")
      }
    },
    T,
  )

  it(
    "the CLI bundle run without the launcher (`node dist/cli.cjs supervisor run`) is the same supervisor",
    async () => {
      const fg = spawn(process.execPath, [join(dirname(BIN), "cli.cjs"), "supervisor", "run"], {
        cwd: proj,
        env: sb.env,
        stdio: ["ignore", "ignore", "pipe"],
      })
      let err = ""
      fg.stderr.setEncoding("utf8").on("data", (d: string) => {
        err += d
      })
      const exited = new Promise((r) => fg.once("close", (code, signal) => r({ code, signal })))
      try {
        await waitFor("the supervisor to listen", () => err.includes("listening on"), { timeout: 15_000 })
        expect(supervisorPids(sb.stateDir)).toEqual([fg.pid])
        expect(cli("start", "svc").status).toBe(0)
        fg.kill("SIGTERM")
        expect(await exited).toEqual({ code: 0, signal: null })
        expect(err).not.toMatch(/error/i)
      } finally {
        fg.kill("SIGKILL")
      }
    },
    T,
  )

  it(
    "SIGINT works the same way",
    async () => {
      const fg = spawnCli(["supervisor", "run"], { cwd: proj, env: sb.env })
      try {
        await waitFor("the foreground supervisor to listen", () => fg.stderr().includes("listening on"), {
          timeout: 15_000,
        })
        expect(cli("start", "svc").status).toBe(0)
        const [daemon] = daemonPids(sb.stateDir, "host/svc")
        fg.child.kill("SIGINT")
        expect(await fg.exited).toEqual({ code: 0, signal: null })
        expect(isAlive(daemon!)).toBe(false)
      } finally {
        fg.child.kill("SIGKILL")
      }
    },
    T,
  )
})

describe("state across a supervisor restart", () => {
  it(
    "disabled daemons stay disabled; stopped ones keep their status",
    async () => {
      expect(cli("disable", "svc").status).toBe(0)
      expect(cli("start", "graceful").status).toBe(0)
      expect(cli("stop", "graceful").status).toBe(0)
      expect(cli("supervisor", "stop").status).toBe(0)
      expect(supervisorPids(sb.stateDir)).toEqual([])

      const refused = cli("start", "svc")
      expect(refused.status).toBe(1)
      expect(refused.stderr).toContain("host/svc is disabled")
      expect(daemonPids(sb.stateDir, "host/svc")).toEqual([])
      const list = JSON.parse(cli("list", "--json").stdout) as Array<{
        id: { qualified: string }
        status: { type: string }
      }>
      expect(list.find((e) => e.id.qualified === "host/svc")?.status.type).toBe("disabled")
      expect((await daemonEntry(sb.stateDir, "host/graceful"))?.status.type).toBe("stopped")
      expect(cli("enable", "svc").status).toBe(0)
      expect(cli("start", "svc").status).toBe(0)
    },
    T,
  )

  it(
    "after supervisor stop nothing is left running, and the next supervisor reports the daemon stopped",
    async () => {
      expect(cli("start", "svc").status).toBe(0)
      expect(cli("supervisor", "stop").status).toBe(0)
      expect(daemonPids(sb.stateDir)).toEqual([])
      const e = JSON.parse(cli("status", "svc", "--json").stdout)
      expect(e.status.type).toBe("stopped")
    },
    T,
  )
})
