/**
 * The everyday daemon commands against a real supervisor and real processes:
 * start, stop (kill), restart, enable, disable, status, list (ls), run, wait,
 * clean, ID resolution and usage errors. One supervisor per describe block;
 * every test uses daemons of its own.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type CliResult,
  type DaemonEntry,
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  isAlive,
  makeDaemonSandbox,
  STACK_LINE,
  storedLogs,
  supervisorPids,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 30_000

/** `sh -c` daemons; `exec` makes the tracked pid the program itself. */
const APP = `
[daemons.web]
run = "echo web up; exec sleep 300"
ready_delay = 0.2

[daemons.slowready]
run = "exec sleep 300"
ready_delay = 3

[daemons.oneshot]
run = "echo task done"
ready_delay = 2

[daemons.broken]
run = "echo 'broken: cannot bind port'; echo 'broken: giving up' >&2; exit 3"
ready_delay = 2

[daemons.broken2]
run = "echo 'nope'; exit 7"
ready_delay = 2

[daemons.again]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.quietd]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.jsond]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.jsonshot]
run = "true"
ready_delay = 2

[daemons.stopme]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.killme]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.rs]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.toggle]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.neverrun]
run = "exec sleep 300"
ready_delay = 0.2

[daemons.idle]
run = "exec sleep 300"

[daemons.exiter]
run = "while [ ! -f exiter.go ]; do sleep 0.05; done; echo bye; exit 3"
ready_delay = 0.2

[daemons.finished]
run = "sleep 0.4; exit 3"
ready_delay = 0.1
`

interface Entry {
  id: { qualified: string; namespace: string; name: string }
  pid: number | null
  status: { type: string; exit_code?: number | null; signal?: string | null; message?: string }
  enabled: boolean
  adhoc: boolean
  source: string | null
  run: string
}

let sb: DaemonSandbox
let app: string
const cli = (...args: Array<string>) => sb.cli(args, app)
/** `supervisor status ID --json`. */
const statusJson = (id: string): Entry => {
  const r = cli("status", id, "--json")
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Entry
}
/** The supervisor's entry, read straight from its API (cheaper than a CLI run). */
const entry = async (id: string): Promise<DaemonEntry> => {
  const e = await daemonEntry(sb.stateDir, id.includes("/") ? id : `app/${id}`)
  expect(e, `the supervisor does not know ${id}`).toBeDefined()
  return e!
}
const listJson = (...args: Array<string>): Array<Entry> => {
  const r = cli("list", "--json", ...args)
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Array<Entry>
}
const startedPid = (r: CliResult, id: string): number => {
  const m = new RegExp(`${id.replace("/", "\\/")} is running \\(pid (\\d+)\\)`).exec(r.stdout)
  expect(m, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).not.toBeNull()
  return Number(m![1])
}
/** Starts the daemon unless it runs already; its pid. */
const ensureRunning = (id: string): number => {
  const r = cli("start", id)
  const m = /is (?:already )?running \(pid (\d+)\)/.exec(r.stdout)
  expect(m, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).not.toBeNull()
  return Number(m![1])
}

describe("daemon commands (one supervisor)", () => {
  beforeAll(() => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    const r = sb.cli(["supervisor", "start"], app)
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain("supervisor started")
  }, T)
  afterAll(() => sb.destroy(), T)

  describe("start", () => {
    it(
      "waits until the daemon is ready (ready_delay), showing `waiting` meanwhile",
      async () => {
        const pending = sb.cliAsync(["start", "slowready"], app)
        // a window of 3 s, opened once the CLI has reached the supervisor
        await waitFor(
          "status waiting",
          async () => (await daemonEntry(sb.stateDir, "app/slowready"))?.status.type === "waiting",
        )
        const r = await pending
        expect(r.status, r.stderr).toBe(0)
        expect(r.ms).toBeGreaterThanOrEqual(3_000)
        const pid = startedPid(r, "app/slowready")
        expect(isAlive(pid)).toBe(true)
        expect(r.stdout).toContain("supervisor logs app/slowready")
        const e = await entry("slowready")
        expect(e.status.type).toBe("running")
        expect(e.pid).toBe(pid)
        expect(daemonPids(sb.stateDir, "app/slowready")).toEqual([pid])
      },
      T,
    )

    it(
      "a daemon that exits 0 before it is ready is reported completed (exit 0)",
      async () => {
        const r = cli("start", "oneshot")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain("app/oneshot ran to completion (exit 0)")
        const e = await entry("oneshot")
        expect(e.status.type).toBe("stopped")
        expect(e.status.exit_code).toBe(0)
        expect(e.pid).toBeNull()
      },
      T,
    )

    it(
      "a daemon that exits non-zero before it is ready fails the start (exit 1) with its last output lines",
      async () => {
        const r = cli("start", "broken")
        expect(r.status).toBe(1)
        expect(r.stderr).toContain("app/broken failed to start")
        expect(r.stderr).toContain("exited with code 3")
        expect(r.stderr).not.toMatch(STACK_LINE)
        // Its output (stdout and stderr) is what tells the user why.
        expect(r.stderr, "the failed start must print the daemon's last output lines").toContain(
          "broken: cannot bind port",
        )
        expect(r.stderr).toContain("broken: giving up")
        const e = await entry("broken")
        expect(e.status.type).toBe("errored")
        expect(e.status.exit_code).toBe(3)
      },
      T,
    )

    it(
      "--json reports each outcome as data (Ready, AlreadyRunning, Completed, StartFailed)",
      async () => {
        const first = cli("start", "jsond", "--json")
        expect(first.status, first.stderr).toBe(0)
        const [ready] = JSON.parse(first.stdout)
        expect(ready).toMatchObject({ _tag: "Ready", id: "app/jsond" })
        expect(isAlive(ready.pid)).toBe(true)
        const second = JSON.parse(cli("start", "jsond", "--json").stdout)
        expect(second).toEqual([{ _tag: "AlreadyRunning", id: "app/jsond", pid: ready.pid }])
        expect(JSON.parse(cli("start", "jsonshot", "--json").stdout)).toEqual([
          { _tag: "Completed", id: "app/jsonshot" },
        ])
        const failed = cli("start", "broken2", "--json")
        expect(failed.status).toBe(1)
        expect(JSON.parse(failed.stdout)[0]).toMatchObject({
          _tag: "StartFailed",
          id: "app/broken2",
          exit_code: 7,
        })
      },
      T,
    )

    it(
      "starting a running daemon is a no-op that exits 0 and says so; --force restarts it",
      async () => {
        const pid = startedPid(cli("start", "again"), "app/again")
        const r = cli("start", "again")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain(`app/again is already running (pid ${pid})`)
        expect(isAlive(pid)).toBe(true)
        expect(daemonPids(sb.stateDir, "app/again")).toEqual([pid])

        const forced = cli("start", "again", "--force")
        expect(forced.status, forced.stderr).toBe(0)
        const next = startedPid(forced, "app/again")
        expect(next).not.toBe(pid)
        expect(isAlive(pid)).toBe(false)
        expect(daemonPids(sb.stateDir, "app/again")).toEqual([next])
        // -f is the short form
        const short = startedPid(cli("start", "-f", "again"), "app/again")
        expect(short).not.toBe(next)
        expect(isAlive(next)).toBe(false)
      },
      T,
    )

    it(
      "--quiet prints nothing on success but still reports a failure",
      async () => {
        const ok = cli("start", "quietd", "--quiet")
        expect(ok.status, ok.stderr).toBe(0)
        expect(ok.stdout).toBe("")
        expect((await entry("quietd")).status.type).toBe("running")
        const bad = cli("start", "broken2", "-q")
        expect(bad.status).toBe(1)
        expect(bad.stderr).toContain("app/broken2 failed to start")
      },
      T,
    )

    it(
      "an unknown daemon is an error (exit 1) that names it",
      async () => {
        const r = cli("start", "nosuch")
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(/daemon nosuch not found/)
        expect(r.stderr).not.toMatch(STACK_LINE)
      },
      T,
    )
  })

  describe("stop, kill, restart", () => {
    it(
      "stop ends the daemon; stopping it again says it was not running",
      async () => {
        const pid = startedPid(cli("start", "stopme"), "app/stopme")
        const r = cli("stop", "stopme")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain("app/stopme stopped")
        expect(isAlive(pid)).toBe(false)
        const e = await entry("stopme")
        expect(e.status.type).toBe("stopped")
        expect(e.pid).toBeNull()
        const again = cli("stop", "stopme")
        expect(again.status, again.stderr).toBe(0)
        expect(again.stdout).toContain("app/stopme was not running")
        const json = cli("stop", "stopme", "--json")
        expect(JSON.parse(json.stdout)).toEqual([{ id: "app/stopme", was_running: false, killed: false }])
        startedPid(cli("start", "stopme"), "app/stopme")
        const quiet = cli("stop", "stopme", "--quiet")
        expect(quiet.status, quiet.stderr).toBe(0)
        expect(quiet.stdout).toBe("")
        expect(daemonPids(sb.stateDir, "app/stopme")).toEqual([])
      },
      T,
    )

    it(
      "kill is an alias of stop",
      async () => {
        const pid = startedPid(cli("start", "killme"), "app/killme")
        const r = cli("kill", "killme")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain("app/killme stopped")
        expect(isAlive(pid)).toBe(false)
        expect((await entry("killme")).status.type).toBe("stopped")
      },
      T,
    )

    it(
      "restart replaces the process (new pid, old one gone) and starts a stopped daemon",
      async () => {
        const pid = startedPid(cli("start", "rs"), "app/rs")
        const r = cli("restart", "rs")
        expect(r.status, r.stderr).toBe(0)
        const next = startedPid(r, "app/rs")
        expect(next).not.toBe(pid)
        expect(isAlive(pid)).toBe(false)
        expect(daemonPids(sb.stateDir, "app/rs")).toEqual([next])
        expect(cli("stop", "rs").status).toBe(0)
        const third = startedPid(cli("restart", "rs"), "app/rs")
        expect(isAlive(third)).toBe(true)
        expect((await entry("rs")).status.type).toBe("running")
        const json = JSON.parse(cli("restart", "rs", "--json").stdout)
        expect(json[0]).toMatchObject({ _tag: "Ready", id: "app/rs" })
        expect(json[0].pid).not.toBe(third)
        expect(isAlive(third)).toBe(false)
      },
      T,
    )
  })

  describe("enable and disable", () => {
    it(
      "disabling a running daemon leaves it running; then it cannot be started (exit 1 naming it) until enabled",
      async () => {
        const pid = startedPid(cli("start", "toggle"), "app/toggle")
        const d = cli("disable", "toggle")
        expect(d.status, d.stderr).toBe(0)
        expect(d.stdout).toContain("app/toggle disabled")
        expect(isAlive(pid)).toBe(true)
        const running = await entry("toggle")
        expect(running.status.type).toBe("running")
        expect(running.enabled).toBe(false)

        expect(cli("stop", "toggle").status).toBe(0)
        expect((await entry("toggle")).status.type).toBe("disabled")
        expect(tableRow(cli("list").stdout, "app/toggle")?.[1]).toBe("disabled")
        const refused = cli("start", "toggle")
        expect(refused.status).toBe(1)
        expect(refused.stderr).toMatch(/app\/toggle is disabled/)
        expect(refused.stdout + refused.stderr).not.toContain("waiting for") // refused, not waited for
        expect(daemonPids(sb.stateDir, "app/toggle")).toEqual([])
        const refusedJson = cli("start", "toggle", "--json")
        expect(refusedJson.status).toBe(1)
        expect(JSON.parse(refusedJson.stdout)).toEqual([{ _tag: "Disabled", id: "app/toggle" }])

        const en = cli("enable", "toggle", "--json")
        expect(en.status, en.stderr).toBe(0)
        expect(JSON.parse(en.stdout)).toEqual([{ id: "app/toggle", enabled: true }])
        const again = cli("start", "toggle")
        expect(again.status, again.stderr).toBe(0)
        expect(await entry("toggle")).toMatchObject({ status: { type: "running" }, enabled: true })
      },
      T,
    )

    it(
      "a daemon that never ran can be disabled: it is listed disabled and refuses to start",
      async () => {
        expect(cli("disable", "neverrun").status).toBe(0)
        expect(listJson().find((e) => e.id.qualified === "app/neverrun")).toMatchObject({
          status: { type: "disabled" },
          enabled: false,
          pid: null,
        })
        const r = cli("start", "neverrun")
        expect(r.status).toBe(1)
        expect(r.stderr).toContain("app/neverrun is disabled")
        expect(r.stdout + r.stderr).not.toContain("waiting for")
        expect(cli("enable", "neverrun").stdout).toContain("app/neverrun enabled")
        expect(statusJson("neverrun").status.type).toBe("available")
      },
      T,
    )
  })

  describe("status and list", () => {
    it(
      "status ID prints pitchfork's lines (Name, PID, Status, Port) then ours; --json the API entry and status_text",
      async () => {
        const pid = startedPid(cli("start", "web"), "app/web")
        const r = cli("status", "web")
        expect(r.status, r.stderr).toBe(0)
        const lines = r.stdout.trim().split("\n")
        expect(lines.slice(0, 3)).toEqual(["Name: app/web", `PID: ${pid}`, "Status: running"])
        expect(lines[3]).toMatch(/^Port: /)
        for (const key of ["Uptime", "CPU", "Memory", "Retries", "Enabled", "Run", "Dir", "Source"])
          expect(r.stdout).toMatch(new RegExp(`^${key}: `, "m"))
        expect(r.stdout).toContain(`Source: ${join(app, "supervisor.toml")}`)
        // what scripts do with it
        expect(lines.filter((l) => /^Status:/.test(l))).toEqual(["Status: running"])
        const e = statusJson("app/web")
        expect(e).toMatchObject({
          id: { namespace: "app", name: "web", qualified: "app/web", safe_path: "app--web" },
          pid,
          status: { type: "running" },
          dir: app,
          enabled: true,
          adhoc: false,
          source: join(app, "supervisor.toml"),
          status_text: "running",
        })
        const unknown = cli("status", "nosuch")
        expect(unknown.status).toBe(1)
        expect(unknown.stderr).toContain("daemon nosuch not found")
      },
      T,
    )

    it(
      "list filters: an unknown status is a usage error; a filter that matches nothing says so",
      async () => {
        const bad = cli("list", "--status", "bogus")
        expect(bad.status).toBe(2)
        expect(bad.stderr).toContain(
          'unknown status "bogus": use one of waiting, running, unhealthy, stopping',
        )
        const none = cli("list", "--namespace", "nope")
        expect(none.status, none.stderr).toBe(0)
        // nothing on stdout for a script; the hint on stderr
        expect(none.stdout).toBe("")
        expect(none.stderr.trim()).toBe("no daemons match --namespace nope")
        expect(JSON.parse(cli("list", "--json", "--namespace", "nope").stdout)).toEqual([])
      },
      T,
    )

    it(
      "start --all where nothing is configured says so and where it looked (exit 0)",
      async () => {
        const empty = sb.dir("nothing-here")
        for (const args of [
          ["start", "--all"],
          ["start", "--all", "--force"],
        ]) {
          const r = sb.cli(args, empty)
          expect(r.status, r.stderr).toBe(0)
          expect(r.stdout).toContain("no daemons to start: no configuration file found; searched:")
          expect(r.stdout).toContain(`create ${join(empty, "supervisor.toml")} with a daemon`)
        }
        expect(sb.cli(["start", "--all", "--quiet"], empty).stdout).toBe("")
        expect(JSON.parse(sb.cli(["start", "--all", "--json"], empty).stdout)).toEqual([])
      },
      T,
    )

    it(
      "a flag that needs a value and has none, or a missing or unknown subcommand, is a usage error that names it",
      async () => {
        const cases: Array<[Array<string>, string]> = [
          [["start", "--group"], "--group needs a value"],
          [["start", "--group", "--delay", "1"], "--group needs a value (it is followed by --delay)"],
          [["logs", "web", "--since"], "--since needs a value"],
          [["list", "--status"], "--status needs a value"],
          [
            ["config", "bogus"],
            "unknown subcommand `supervisor config bogus`; use one of show, validate, get",
          ],
          [["config"], "`supervisor config` needs a subcommand: show, validate, get"],
          [["supervisor", "restart"], "use one of run, start, stop, status, token"],
          // @effect/cli's own parse errors, in the same wording
          [
            ["status"],
            "error: missing argument <id>: the daemon to show; `supervisor list` shows every daemon (see `supervisor status --help`)",
          ],
          [["status", "a", "b"], 'error: unexpected argument "b" (see `supervisor status --help`)'],
          [["logs", "-n", "abc"], 'error: -n "abc": not an integer (see `supervisor logs --help`)'],
          [["ls", "--bogus"], "error: unknown option --bogus (see `supervisor list --help`)"],
          [
            ["config", "show", "--bogus"],
            "error: unknown option --bogus (see `supervisor config show --help`)",
          ],
        ]
        for (const [args, message] of cases) {
          const r = cli(...args)
          expect(r.status, args.join(" ")).toBe(2)
          expect(r.stderr, args.join(" ")).toContain(message)
        }
      },
      T,
    )

    it(
      "list shows every daemon; configured but never started ones are `available`; ls is an alias",
      async () => {
        const pid = ensureRunning("web")
        const r = cli("list")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS\s+PID/)
        expect(tableRow(r.stdout, "app/web")?.slice(0, 3)).toEqual(["app/web", "running", String(pid)])
        // a running daemon has an uptime, "0s" in its first second; one that is not running has none
        expect(tableRow(r.stdout, "app/web")?.[3]).toMatch(/^\d+(s|m(\d+s)?)$/)
        expect(tableRow(r.stdout, "app/idle")?.slice(0, 4)).toEqual(["app/idle", "available", "-", "-"])
        const ls = cli("ls")
        expect(ls.status).toBe(0)
        expect(tableRow(ls.stdout, "app/idle")?.[1]).toBe("available")

        const all = listJson()
        expect(all.find((e) => e.id.qualified === "app/idle")).toMatchObject({
          status: { type: "available" },
          pid: null,
        })
        expect(all.find((e) => e.id.qualified === "app/web")).toMatchObject({
          status: { type: "running" },
          pid,
        })
      },
      T,
    )

    it(
      "list --status and --namespace filter",
      async () => {
        ensureRunning("web")
        const running = listJson("--status", "running")
        expect(running.length).toBeGreaterThan(0)
        expect(running.every((e) => e.status.type === "running")).toBe(true)
        expect(running.some((e) => e.id.qualified === "app/web")).toBe(true)
        const available = listJson("--status", "available")
        expect(available.some((e) => e.id.qualified === "app/idle")).toBe(true)
        expect(available.every((e) => e.status.type === "available")).toBe(true)
        expect(listJson("--namespace", "app").length).toBeGreaterThan(3)
        expect(listJson("--namespace", "other")).toEqual([])
        const table = cli("ls", "--status", "running")
        expect(tableRow(table.stdout, "app/web")).toBeDefined()
        expect(tableRow(table.stdout, "app/idle")).toBeUndefined()
      },
      T,
    )
  })

  describe("run, wait", () => {
    it(
      "run ID -- CMD starts an ad-hoc daemon that can be restarted and stopped by ID",
      async () => {
        const r = cli(
          "run",
          "--delay",
          "1",
          "adhoc",
          "--",
          "sh",
          "-c",
          "echo adhoc $0 started; exec sleep 300",
        )
        expect(r.status, r.stderr).toBe(0)
        const pid = startedPid(r, "app/adhoc")
        expect(isAlive(pid)).toBe(true)
        const e = await entry("adhoc")
        expect(e).toMatchObject({ adhoc: true, source: null, status: { type: "running" }, pid })
        expect(e.run).toContain("sleep 300")

        const restarted = cli("restart", "adhoc")
        expect(restarted.status, restarted.stderr).toBe(0)
        const next = startedPid(restarted, "app/adhoc")
        expect(next).not.toBe(pid)
        expect(isAlive(pid)).toBe(false)

        const stopped = cli("stop", "app/adhoc")
        expect(stopped.status, stopped.stderr).toBe(0)
        expect(isAlive(next)).toBe(false)
        expect((await entry("adhoc")).status.type).toBe("stopped")
        // and started again from what the supervisor remembers
        const again = cli("start", "adhoc")
        expect(again.status, again.stderr).toBe(0)
        expect(isAlive(startedPid(again, "app/adhoc"))).toBe(true)
        expect(cli("stop", "adhoc").status).toBe(0)
      },
      T,
    )

    it(
      "run: a configured ID is refused (exit 1); a running ad-hoc daemon given another command says it was not replaced",
      async () => {
        const configured = cli("run", "idle", "--", "sleep", "300")
        expect(configured.status).toBe(1)
        expect(configured.stderr).toContain("app/idle is configured in ")
        expect(configured.stderr).toContain(
          "start it with `supervisor start idle`, or give the ad-hoc daemon another ID",
        )
        expect(listJson().find((e) => e.id.name === "idle")?.status.type).toBe("available")
        const first = cli("run", "--delay", "0", "job", "--", "sleep", "300")
        expect(first.status, first.stderr).toBe(0)
        const again = cli("run", "--delay", "0", "job", "--", "sleep", "200")
        expect(again.status, again.stderr).toBe(0)
        expect(again.stdout).toContain("app/job is already running")
        expect(again.stderr).toContain(
          "it runs `sleep 300`, not this command; `supervisor run job --force -- ...` replaces it",
        )
        expect((await entry("job")).run).toBe("sleep 300")
        expect(cli("stop", "job").status).toBe(0)
      },
      T,
    )

    it(
      "run: the command after -- is the daemon's, even when it holds --help, --version or -f",
      async () => {
        const r = cli(
          "run",
          "--delay",
          "0",
          "helpful",
          "--",
          "sh",
          "-c",
          "echo $1 $2 $3; exec sleep 300",
          "sh",
          "--help",
          "--version",
          "-f",
        )
        expect(r.status, r.stderr).toBe(0)
        startedPid(r, "app/helpful")
        expect((await entry("helpful")).run).toBe(
          "sh -c 'echo $1 $2 $3; exec sleep 300' sh --help --version -f",
        )
        await waitFor("the daemon's line", async () =>
          (await storedLogs(sb.stateDir, "app/helpful")).some((e) => e.message === "--help --version -f"),
        )
        expect(cli("stop", "helpful").status).toBe(0)
      },
      T,
    )

    it(
      "run: a missing command, a missing ID or an unknown flag before -- is a usage error (exit 2), nothing started",
      async () => {
        const cases: Array<[Array<string>, RegExp]> = [
          [["run", "nocmd"], /command after --/],
          [["run", "nocmd", "sleep", "300"], /command after --/],
          [["run", "nocmd", "--"], /nothing after --/],
          [["run", "--", "echo", "x"], /^error: missing argument <id> \(see `supervisor run --help`\)$/m],
          [
            ["run", "x", "--bogus", "--", "echo", "hi"],
            /^error: unknown option --bogus \(see `supervisor run --help`\)$/m,
          ],
          [
            ["run", "x", "y", "--", "echo", "hi"],
            /^error: unexpected argument "y" \(see `supervisor run --help`\)$/m,
          ],
        ]
        for (const [args, message] of cases) {
          const r = cli(...args)
          expect(r.status, args.join(" ")).toBe(2)
          expect(r.stderr, args.join(" ")).toMatch(message)
        }
        const ids = listJson().map((e) => e.id.name)
        for (const name of ["nocmd", "echo", "x"]) expect(ids).not.toContain(name)
      },
      T,
    )

    it(
      "wait on a configured daemon that never ran returns at once: available, exit 0",
      async () => {
        const r = cli("wait", "idle")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout.trim()).toBe("app/idle available")
        const j = cli("wait", "idle", "--json")
        expect(JSON.parse(j.stdout)).toEqual({
          id: "app/idle",
          status: "available",
          exit_code: null,
          signal: null,
          success: false,
        })
        const unknown = cli("wait", "nosuch")
        expect(unknown.status).toBe(1)
        expect(unknown.stderr).toContain("daemon nosuch not found")
      },
      T,
    )

    it(
      "wait blocks until the daemon exits and exits with its exit code",
      async () => {
        expect(cli("start", "exiter").status).toBe(0)
        const waiting = sb.cliAsync(["wait", "exiter"], app)
        // The daemon exits only once this file exists, after `wait` was started.
        await waitFor(
          "the daemon to be running",
          async () => (await daemonEntry(sb.stateDir, "app/exiter"))?.status.type === "running",
        )
        writeFileSync(join(app, "exiter.go"), "")
        const r = await waiting
        expect(r.status).toBe(3)
        expect(r.stdout).toContain("app/exiter errored (exit 3)")
        // on a daemon that has already exited it returns at once
        const json = cli("wait", "exiter", "--json")
        expect(json.status).toBe(3)
        expect(JSON.parse(json.stdout)).toMatchObject({ id: "app/exiter", status: "errored", exit_code: 3 })
      },
      T,
    )

    it(
      "wait right after start: the daemon exits by itself later with code 3",
      async () => {
        const s = cli("start", "finished")
        expect(s.status, s.stdout + s.stderr).toBe(0)
        const r = cli("wait", "finished")
        expect(r.status, r.stdout + r.stderr).toBe(3)
        expect((await entry("finished")).status).toMatchObject({ type: "errored", exit_code: 3 })
      },
      T,
    )
  })

  it(
    "output is plain (no colour codes) when stdout is not a terminal, even without NO_COLOR",
    () => {
      const { NO_COLOR: _, ...env } = sb.env
      for (const args of [["list"], ["status", "web"], ["start", "web"], ["logs", "web"]]) {
        const r = sb.cli(args, app, env)
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout + r.stderr).not.toContain("\u001b[")
      }
    },
    T,
  )

  describe("usage errors exit 2", () => {
    it.each([
      [["status"]],
      [["wait"]],
      [["logs", "-n", "abc"]],
      [["list", "--statu", "running"]],
      [["start", "--bogus"]],
      [["start", "web", "--bogus"]],
      [["stop", "--bogus"]],
      [["supervisor", "bogus"]],
    ])(
      "%j",
      (args) => {
        const r = cli(...args)
        expect(r.status, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(2)
        expect(r.stderr).not.toMatch(STACK_LINE)
      },
      T,
    )
  })

  describe("clean", () => {
    it(
      "forgets stopped daemons (ad-hoc ones vanish, configured ones are available again) and keeps running ones",
      async () => {
        const running = ensureRunning("web")
        expect(cli("run", "--delay", "0", "gone", "--", "sleep", "300").status).toBe(0)
        expect(cli("stop", "gone", "stopme").status).toBe(0)
        const r = cli("clean")
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toContain("forgot app/gone")
        expect(r.stdout).toContain("forgot app/stopme")
        expect(r.stdout).not.toContain("app/web")
        const all = listJson()
        expect(all.find((e) => e.id.qualified === "app/gone")).toBeUndefined()
        expect(all.find((e) => e.id.qualified === "app/stopme")?.status.type).toBe("available")
        expect(all.find((e) => e.id.qualified === "app/web")).toMatchObject({
          status: { type: "running" },
          pid: running,
        })
        expect(cli("status", "gone").status).toBe(1)
        const again = cli("clean", "--json")
        expect(again.status).toBe(0)
        expect(JSON.parse(again.stdout)).toEqual({ removed: [] })
        expect(cli("clean").stdout).toContain("nothing to clean")
      },
      T,
    )
  })
})

describe("--all and --group (their own supervisor)", () => {
  let box: DaemonSandbox
  let stack: string
  const run = (...args: Array<string>) => box.cli(args, stack)
  const state = () =>
    Object.fromEntries(
      (JSON.parse(run("list", "--json").stdout) as Array<Entry>).map((e) => [e.id.name, e.status.type]),
    )
  beforeAll(() => {
    box = makeDaemonSandbox()
    stack = box.project(
      "stack",
      `
[daemons.db]
run = "exec sleep 300"
ready_delay = 0.2
[daemons.api]
run = "exec sleep 300"
ready_delay = 0.2
[daemons.worker]
run = "exec sleep 300"
ready_delay = 0.2
[groups.backend]
daemons = ["db", "api"]
[groups.broken]
daemons = ["db", "ghost"]
`,
    )
  }, T)
  afterAll(() => box.destroy(), T)

  it(
    "start --group starts exactly the group's daemons; stop --group stops them",
    async () => {
      const r = run("start", "--group", "backend")
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("stack/db is running")
      expect(r.stdout).toContain("stack/api is running")
      expect(state()).toEqual({ api: "running", db: "running", worker: "available" })
      const s = run("stop", "--group", "backend")
      expect(s.status, s.stderr).toBe(0)
      expect(state()).toEqual({ api: "stopped", db: "stopped", worker: "available" })
      expect(daemonPids(box.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "restart --group restarts the group's daemons (new pids)",
    () => {
      expect(run("start", "--group", "backend").status).toBe(0)
      const before = daemonPids(box.stateDir)
      expect(before).toHaveLength(2)
      const r = run("restart", "--group", "backend")
      expect(r.status, r.stderr).toBe(0)
      const after = daemonPids(box.stateDir)
      expect(after).toHaveLength(2)
      for (const p of before) expect(isAlive(p)).toBe(false)
      expect(run("stop", "--group", "backend").status).toBe(0)
    },
    T,
  )

  it(
    "an unknown group, or a group naming a missing daemon, is an error that says so",
    async () => {
      const unknown = run("start", "--group", "nope")
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toMatch(/no group named nope; groups: .*backend/)
      const broken = run("start", "--group", "broken")
      expect(broken.status).toBe(1)
      expect(broken.stderr).toContain("stack/ghost")
    },
    T,
  )

  it(
    "start --all starts every configured daemon; stop --all stops every running one",
    async () => {
      const r = run("start", "--all")
      expect(r.status, r.stderr).toBe(0)
      expect(state()).toEqual({ api: "running", db: "running", worker: "running" })
      expect(daemonPids(box.stateDir).length).toBe(3)
      const s = run("stop", "--all")
      expect(s.status, s.stderr).toBe(0)
      expect(state()).toEqual({ api: "stopped", db: "stopped", worker: "stopped" })
      expect(daemonPids(box.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "start, stop, restart, enable or disable with nothing selected is a usage error (exit 2)",
    async () => {
      for (const command of ["start", "stop", "restart"]) {
        const r = run(command)
        expect(r.status, command).toBe(2)
        expect(r.stderr, command).toContain(
          "No daemon ID specified: name one or more daemons, or use --all or --group",
        )
      }
      for (const command of ["enable", "disable"]) {
        const r = run(command)
        expect(r.status, command).toBe(2)
        expect(r.stderr, command).toContain(`name the daemons to ${command}`)
      }
    },
    T,
  )
})

describe("ID resolution across namespaces (their own supervisor)", () => {
  let box: DaemonSandbox
  let alpha: string
  let beta: string
  let elsewhere: string
  const daemon = (name: string) => `[daemons.${name}]\nrun = "exec sleep 300"\nready_delay = 0.2\n`
  beforeAll(() => {
    box = makeDaemonSandbox()
    alpha = box.project("alpha", daemon("dup") + daemon("solo"))
    beta = box.project("beta", daemon("dup"))
    elsewhere = box.dir("elsewhere")
    expect(box.cli(["start", "dup", "solo"], alpha).status).toBe(0)
    expect(box.cli(["start", "dup"], beta).status).toBe(0)
  }, T)
  afterAll(() => box.destroy(), T)

  const statusOf = (id: string, cwd: string) => box.cli(["status", id, "--json"], cwd)

  it(
    "a short ID means the current directory's namespace first",
    async () => {
      expect(JSON.parse(statusOf("dup", alpha).stdout).id.qualified).toBe("alpha/dup")
      expect(JSON.parse(statusOf("dup", beta).stdout).id.qualified).toBe("beta/dup")
    },
    T,
  )

  it(
    "then a unique match in any namespace",
    async () => {
      const r = statusOf("solo", elsewhere)
      expect(r.status, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout).id.qualified).toBe("alpha/solo")
      expect(JSON.parse(statusOf("solo", beta).stdout).id.qualified).toBe("alpha/solo")
    },
    T,
  )

  it(
    "an ambiguous short ID is an error listing the candidates",
    async () => {
      const r = box.cli(["stop", "dup"], elsewhere)
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/dup is ambiguous: alpha\/dup, beta\/dup/)
      expect(daemonPids(box.stateDir, "alpha/dup").length).toBe(1)
      expect(daemonPids(box.stateDir, "beta/dup").length).toBe(1)
    },
    T,
  )

  it(
    "qualified IDs work from any directory",
    async () => {
      const s = box.cli(["stop", "beta/dup"], alpha)
      expect(s.status, s.stderr).toBe(0)
      expect(daemonPids(box.stateDir, "beta/dup")).toEqual([])
      expect(daemonPids(box.stateDir, "alpha/dup").length).toBe(1)
      const r = box.cli(["start", "beta/dup"], elsewhere)
      expect(r.status, r.stderr).toBe(0)
      expect(daemonPids(box.stateDir, "beta/dup").length).toBe(1)
      expect(JSON.parse(statusOf("alpha/dup", elsewhere).stdout).status.type).toBe("running")
      expect(box.cli(["restart", "alpha/solo"], beta).status).toBe(0)
      const missing = box.cli(["status", "gamma/dup"], elsewhere)
      expect(missing.status).toBe(1)
      expect(missing.stderr).toContain("gamma/dup")
    },
    T,
  )

  it(
    "only one supervisor served all of it",
    async () => {
      expect(supervisorPids(box.stateDir).length).toBe(1)
      expect(existsSync(join(box.stateDir, "sock", "api.sock"))).toBe(true)
    },
    T,
  )
})
