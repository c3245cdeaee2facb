/**
 * What pitchfork's users' scripts and habits expect, through the built CLI: configuration errors
 * reported alike by every command, the `list` and `status` forms scripts parse, the messages they
 * grep for, the aliases, `--local`/`--global`, `restart --all`, `logs --grep` repeated, a
 * namespace two projects would share, and the web UI under a base path.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  makeDaemonSandbox,
  runCli,
  storedLogs,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 30_000

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
}, T)

const PROJECT = `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0

[daemons.crash]
run = "sleep 0.2; exit 3"
ready_delay = 0
`

const setup = (toml = PROJECT) => {
  sb = makeDaemonSandbox()
  const dir = sb.project("app", toml)
  const cli = (...args: Array<string>) => sb!.cli(args, dir)
  return { sb, dir, cli }
}

describe("configuration problems", () => {
  it(
    "every command reports them as errors and exits 1; list still shows what the supervisor runs",
    async () => {
      const { sb, dir, cli } = setup()
      expect(cli("start", "web").status).toBe(0)
      writeFileSync(join(dir, "supervisor.toml"), `${PROJECT}\n[daemons.broken]\nrun = 3\n`)
      const list = cli("list")
      expect(list.status).toBe(1)
      expect(list.stderr).toMatch(/^error: .*supervisor\.toml:\d+: daemons\.broken\.run/m)
      expect(tableRow(list.stdout, "app/web")?.[1]).toBe("running")
      for (const args of [
        ["status", "app/web"],
        ["logs", "app/web"],
        ["stop", "app/web"],
      ]) {
        const r = cli(...args)
        expect(r.status, args.join(" ")).toBe(1)
        expect(r.stderr, args.join(" ")).toMatch(/^error: .*daemons\.broken\.run/m)
      }
      expect(cli("start", "app/web").status).toBe(1)
      expect(sb.stateDir).toBeTruthy()
    },
    T,
  )

  it(
    "two projects that take one namespace from their directories' names: an error naming both files",
    () => {
      const { sb, cli } = setup()
      const inner = sb.project("app/app", `[daemons.api]\nrun = "exec sleep 300"\n`)
      const r = sb.cli(["config", "validate"], inner)
      expect(r.status).toBe(1)
      expect(r.stderr).toContain(join(inner, "supervisor.toml"))
      expect(r.stderr).toContain(`namespace "app" is also that of ${join(sb.root, "app", "supervisor.toml")}`)
      expect(r.stderr).toMatch(/hint: set a top-level namespace/)
      // a declared namespace shares on purpose
      writeFileSync(
        join(inner, "supervisor.toml"),
        `namespace = "inner"\n[daemons.api]\nrun = "exec sleep 300"\n`,
      )
      expect(sb.cli(["config", "validate"], inner).status).toBe(0)
      expect(cli("config", "validate").status).toBe(0)
    },
    T,
  )
})

describe("output scripts parse", () => {
  it(
    "list: errored (exit code N), disabled on a running daemon, --hide-header; an empty listing prints nothing on stdout",
    async () => {
      const { sb, cli } = setup()
      expect(cli("start", "web").status).toBe(0)
      // ready at once (ready_delay = 0), then it exits 3 with no retries left
      expect(cli("start", "crash").status).toBe(0)
      await waitFor(
        "crash to fail for good",
        async () => (await daemonEntry(sb.stateDir, "app/crash"))?.status.type === "errored",
      )
      expect(cli("disable", "web").status).toBe(0)
      const list = cli("list")
      expect(tableRow(list.stdout, "app/crash")?.[1]).toBe("errored (exit code 3)")
      expect(tableRow(list.stdout, "app/web")?.[1]).toBe("running disabled")
      expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+STATUS/)
      const bare = cli("list", "--hide-header")
      expect(bare.stdout.split("\n")[0]).toMatch(/^app\/crash\s/)
      // pitchfork's completion script: `ls --hide-header --status A --status B | awk '{print $1}'`
      const either = cli("ls", "--hide-header", "--status", "errored", "--status", "running")
      expect(
        either.stdout
          .trim()
          .split("\n")
          .map((l) => l.split(/\s+/)[0]),
      ).toEqual(["app/crash", "app/web"])
      expect(cli("ls", "--hide-header", "--status", "stopped").stdout).toBe("")
      const none = sb.cli(["list", "--namespace", "nope"], sb.dir("empty"))
      expect(none.stdout).toBe("")
      expect(none.stderr).toContain("no daemons match")
    },
    T,
  )

  it(
    "messages: `daemon X not found` with the closest ID, `No daemon ID specified`, auto-start disabled",
    () => {
      const { sb, dir, cli } = setup()
      mkdirSync(join(sb.home, ".config", "supervisor"), { recursive: true })
      writeFileSync(
        join(sb.home, ".config", "supervisor", "config.toml"),
        "[settings.supervisor]\nauto_start = false\n",
      )
      const off = sb.cli(["list"], dir)
      expect(off.status).toBe(1)
      expect(off.stderr).toContain("auto-start is disabled (settings.supervisor.auto_start = false)")
      expect(off.stderr).toContain("supervisor supervisor start")
      rmSync(join(sb.home, ".config", "supervisor", "config.toml"))
      const unknown = cli("status", "wbe")
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toContain("daemon wbe not found; did you mean web?")
      const none = cli("start")
      expect(none.status).toBe(2)
      expect(none.stderr).toContain("No daemon ID specified")
    },
    T,
  )
})

describe("aliases and scopes", () => {
  it(
    "s, stat, l, w, c, d, e, sup work as their commands",
    async () => {
      const { sb, cli } = setup()
      expect(cli("s", "web").status).toBe(0)
      expect(cli("stat", "web").stdout).toContain("Status: running")
      expect(cli("d", "web").status).toBe(0)
      expect(cli("e", "web").status).toBe(0)
      expect(cli("l", "web", "-n", "5").status).toBe(0)
      expect(cli("sup", "status").stdout).toContain("running")
      expect(cli("kill", "web").stdout).toContain("app/web stopped")
      // wait reports the last run's end: stopped by SIGTERM, 128 + 15
      const waited = cli("w", "web")
      expect(waited.status).toBe(143)
      expect(waited.stdout).toContain("app/web stopped")
      expect(cli("c").status).toBe(0)
      expect((await daemonEntry(sb.stateDir, "app/web"))?.status.type).toBe("available")
    },
    T,
  )

  it(
    "--local and --global: the daemons of the project's files or of the global files; not with IDs",
    async () => {
      const { sb, cli } = setup()
      mkdirSync(join(sb.home, ".config", "supervisor"), { recursive: true })
      writeFileSync(
        join(sb.home, ".config", "supervisor", "config.toml"),
        `[daemons.shared]\nrun = "exec sleep 300"\nready_delay = 0\n`,
      )
      expect(cli("start", "--global").status).toBe(0)
      expect((await daemonEntry(sb.stateDir, "global/shared"))?.status.type).toBe("running")
      expect((await daemonEntry(sb.stateDir, "app/web"))?.status.type).toBe("available")
      expect(cli("start", "web").status).toBe(0)
      const stopped = cli("stop", "-l", "--json")
      expect(JSON.parse(stopped.stdout).map((r: { id: string }) => r.id)).toEqual(["app/web"])
      expect((await daemonEntry(sb.stateDir, "global/shared"))?.status.type).toBe("running")
      expect(cli("stop", "--all-global").status).toBe(0)
      expect((await daemonEntry(sb.stateDir, "global/shared"))?.status.type).toBe("stopped")
      const both = cli("start", "--local", "web")
      expect(both.status).toBe(2)
      expect(both.stderr).toContain("--local cannot be combined with daemon IDs")
    },
    T,
  )

  it(
    "restart --all restarts every running daemon, ad-hoc ones included; restart takes the readiness flags",
    async () => {
      const { sb, cli } = setup()
      expect(cli("start", "web").status).toBe(0)
      expect(cli("run", "adhoc", "-d", "0", "--", "sleep", "300").status).toBe(0)
      const before = {
        web: (await daemonEntry(sb.stateDir, "app/web"))!.pid,
        adhoc: (await daemonEntry(sb.stateDir, "app/adhoc"))!.pid,
      }
      const r = cli("restart", "--all", "--json")
      expect(r.status, r.stderr).toBe(0)
      expect(
        JSON.parse(r.stdout)
          .map((o: { id: string }) => o.id)
          .sort(),
      ).toEqual(["app/adhoc", "app/web"])
      expect((await daemonEntry(sb.stateDir, "app/web"))!.pid).not.toBe(before.web)
      expect((await daemonEntry(sb.stateDir, "app/adhoc"))!.pid).not.toBe(before.adhoc)
      // crash is configured but does not run: not restarted
      expect((await daemonEntry(sb.stateDir, "app/crash"))?.status.type).toBe("available")
      // the readiness flags of start, as pitchfork's restart has them
      const badCheck = cli("restart", "web", "--http", "not-a-url")
      expect(badCheck.status).toBe(2)
      expect(badCheck.stderr).toContain("--http")
      const pid = (await daemonEntry(sb.stateDir, "app/web"))!.pid
      expect(cli("restart", "web", "--cmd", "true").status).toBe(0)
      expect((await daemonEntry(sb.stateDir, "app/web"))!.pid).not.toBe(pid)
    },
    T,
  )
})

describe("logs --grep", () => {
  it(
    "repeated: a line matching any of them (case-insensitive), or-ed with --regex; a bad or repeated flag named",
    async () => {
      const { sb, cli } = setup(
        `[daemons.talk]\nrun = "printf 'Alpha\\\\nbeta\\\\ngamma\\\\ndelta\\\\n'; exec sleep 300"\nready_delay = 0\n`,
      )
      expect(cli("start", "talk").status).toBe(0)
      await waitFor("the lines", async () => (await storedLogs(sb.stateDir, "app/talk")).length >= 4)
      const grep = cli(
        "logs",
        "talk",
        "--grep",
        "alpha",
        "--grep",
        "GAMMA",
        "-s",
        "1h",
        "--no-timestamp",
        "--no-pager",
      )
      expect(grep.stdout.trim().split("\n")).toEqual(["Alpha", "gamma"])
      const withRegex = cli("logs", "talk", "--grep", "alpha", "--regex", "^d", "--no-timestamp")
      expect(withRegex.stdout.trim().split("\n")).toEqual(["Alpha", "delta"])
      const bad = cli("logs", "talk", "--bogus")
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain("unknown option --bogus")
      const twice = cli("logs", "talk", "-n", "1", "--lines=2")
      expect(twice.status).toBe(2)
      expect(twice.stderr).toContain("option --lines/-n is given more than once")
      const badLevel = cli("logs", "talk", "--level", "loud")
      expect(badLevel.status).toBe(2)
      expect(badLevel.stderr).toContain(
        "error: invalid level 'loud' for --level; expected one of: trace, debug, info, warn, error, fatal",
      )
    },
    T,
  )
})

/** One request to the web listener; the Host header is the listener's own. */
const get = (url: string, token?: string): Promise<{ status: number; location?: string; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { headers: token ? { "x-supervisor-token": token } : {} }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => {
        body += c
      })
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          ...(res.headers.location ? { location: res.headers.location } : {}),
          body,
        }),
      )
    })
    req.on("error", reject)
    req.end()
  })

describe("the web UI under a base path", () => {
  it(
    "--web-path /sv: the page and the API under it, / redirects to it (307); supervisor run rejects unknown flags",
    async () => {
      const { sb, dir, cli } = setup()
      const started = cli("supervisor", "start", "--web-port", "0", "--web-path", "/sv")
      expect(started.status, started.stderr).toBe(0)
      const status = JSON.parse(cli("supervisor", "status", "--json").stdout) as { web_url: string }
      expect(status.web_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sv$/)
      const origin = status.web_url.replace(/\/sv$/, "")
      const root = await get(`${origin}/`)
      expect(root.status).toBe(307)
      expect(root.location).toBe("/sv/")
      const page = await get(`${status.web_url}/`)
      expect(page.status).toBe(200)
      expect(page.body).toContain("<!doctype html>")
      const token = cli("supervisor", "token").stdout.trim()
      expect(cli("start", "web").status).toBe(0)
      const daemons = await get(`${status.web_url}/api/daemons`, token)
      expect(daemons.status).toBe(200)
      expect(
        (JSON.parse(daemons.body) as Array<{ id: { qualified: string } }>).map((d) => d.id.qualified),
      ).toContain("app/web")
      expect((await get(`${origin}/api/daemons`, token)).status).toBe(404)
      const login = cli("web")
      expect(login.stdout).toMatch(new RegExp(`^${status.web_url}/login\\?code=`, "m"))

      const bogus = runCli(["supervisor", "run", "--bogus-flag", "x"], { cwd: dir, env: sb.env })
      expect(bogus.status).toBe(2)
      expect(bogus.stderr).toContain("unknown option --bogus-flag")
      expect(readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")).toContain(
        `Web UI listening on ${status.web_url}`,
      )
    },
    T,
  )
})
