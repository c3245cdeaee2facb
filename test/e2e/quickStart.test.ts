/**
 * `supervisor start` answered by the supervisor (dist/quick.cjs, POST /api/cli/start-from):
 * the same lines and exit status as the full CLI, and everything else left to the CLI before
 * anything is started. The CLI bundle is removed from a copy of dist/ to tell who answered.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { dirname, join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { apiGet, BIN, copyInstall, type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 30_000
const DIST = dirname(BIN)

const CONFIG = `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0.1

[daemons.db]
run = "exec sleep 300"
ready_output = "^up$"

[daemons.api]
run = "exec sleep 300"
ready_delay = 0
depends = ["db"]

[daemons.once]
run = "echo done"

[daemons.bad]
run = "echo 'cannot bind'; exit 3"

[daemons.off]
run = "exec sleep 300"

[groups.backend]
daemons = ["api"]
`
// db prints its ready line after a moment; the template keeps db ready for api.
const DB_RUN = `run = "sleep 0.2; echo up; exec sleep 300"`

let sb: DaemonSandbox
let proj: string
let copy: string

beforeEach(() => {
  sb = makeDaemonSandbox()
  sb.env.NO_COLOR = "1"
  proj = sb.project("app", CONFIG.replace(`run = "exec sleep 300"\nready_output`, `${DB_RUN}\nready_output`))
  copy = copyInstall(sb.dir("install"))
})
afterEach(() => sb.destroy(), T)

/** The copied launcher, as the package's `bin`. */
const launch = (...args: Array<string>) => {
  const r = spawnSync(process.execPath, [join(copy, "supervisor.cjs"), ...args], {
    cwd: proj,
    env: sb.env,
    encoding: "utf8",
    timeout: T,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const withoutCli = () => rmSync(join(copy, "cli.cjs"))
const withCli = () => copyFileSync(join(DIST, "cli.cjs"), join(copy, "cli.cjs"))
const pids = (text: string) => text.replace(/pid \d+/g, "pid N")

interface Entry {
  readonly id: { readonly qualified: string }
  readonly status: { readonly type: string }
  readonly pid: number | null
}
const statusOf = async (id: string) =>
  (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons"))?.find((e) => e.id.qualified === id)?.status.type

/** POST /api/cli/start-from: the status and the ndjson lines of the answer. */
const startFrom = (body: unknown): Promise<{ status: number; events: Array<unknown> }> =>
  new Promise((resolve, reject) => {
    const payload = JSON.stringify(body)
    const req = request(
      {
        socketPath: join(sb.stateDir, "sock", "api.sock"),
        path: "/api/cli/start-from",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d
        })
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            events:
              res.statusCode === 200
                ? text
                    .trimEnd()
                    .split("\n")
                    .map((l) => JSON.parse(l))
                : [],
          }),
        )
      },
    )
    req.on("error", reject)
    req.end(payload)
  })
const request_ = (version: string, ids: Array<string>, progress: string) => ({
  version,
  cwd: proj,
  env: sb.env,
  ids,
  all: false,
  group: null,
  force: false,
  progress,
})

describe("start, answered by the supervisor", () => {
  it(
    "prints what the CLI prints, dependencies and groups included",
    async () => {
      expect(launch("supervisor", "start").status).toBe(0)
      withoutCli() // only the quick path can answer now
      const first = launch("start", "web")
      expect(first.status, first.stderr).toBe(0)
      expect(first.stderr).toBe("")
      expect(pids(first.stdout)).toBe(
        "app/web waiting for 100ms\n✓ app/web is running (pid N)\nlogs: supervisor logs app/web -f    status: supervisor list    stop: supervisor stop app/web\n",
      )
      const again = launch("start", "app/web")
      expect(again).toMatchObject({ status: 0, stderr: "" })
      expect(pids(again.stdout)).toBe("• app/web is already running (pid N)\n")
      // A group, with the dependency started first and both waited for.
      const group = launch("start", "--group", "backend")
      expect(group.status, group.stderr).toBe(0)
      expect(pids(group.stdout)).toBe(
        [
          // a transcript: api waits for db to be ready first, then for its own readiness
          "app/api waiting for app/db to be ready",
          "app/db waiting for output matching /^up$/",
          "✓ app/db is running (pid N)",
          "app/api waiting for 0s",
          "✓ app/api is running (pid N)",
          "logs: supervisor logs app/db app/api -f    status: supervisor list    stop: supervisor stop app/db app/api",
          "",
        ].join("\n"),
      )
      expect(await statusOf("app/db")).toBe("running")
      // --force --json: a restart, with the outcome as JSON.
      const before = (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons"))?.find(
        (e) => e.id.qualified === "app/web",
      )?.pid
      const forced = launch("start", "web", "--force", "--json")
      expect(forced.status, forced.stderr).toBe(0)
      const outcomes = JSON.parse(forced.stdout) as Array<{ _tag: string; id: string; pid: number }>
      expect(outcomes).toEqual([{ _tag: "Ready", id: "app/web", pid: expect.any(Number) }])
      expect(outcomes[0]?.pid).not.toBe(before)
      // The same run through the full CLI prints the same.
      withCli()
      const full = launch("start", "web", "--json")
      withoutCli()
      expect(launch("start", "web", "--json")).toEqual(full)
    },
    T,
  )

  it(
    "reports failures, completions and disabled daemons on stderr with the CLI's exit status",
    async () => {
      expect(launch("supervisor", "start").status).toBe(0)
      withCli()
      expect(launch("disable", "off").status).toBe(0)
      withoutCli()
      const r = launch("start", "once", "bad", "off")
      expect(r.status).toBe(1)
      // the disabled one is refused, not waited for; each line comes when its daemon gets there
      // (once can complete before bad's process exists: they start together)
      const lines = r.stdout.split("\n")
      expect([...lines].sort()).toEqual(
        [
          "",
          "app/bad waiting for 3s",
          "app/once waiting for 3s",
          "✓ app/once ran to completion (exit 0)",
        ].sort(),
      )
      expect(lines.indexOf("app/once waiting for 3s")).toBeLessThan(
        lines.indexOf("✓ app/once ran to completion (exit 0)"),
      )
      expect(r.stderr).toContain(
        "✗ app/bad failed to start: app/bad exited with code 3\n  last output:\n    cannot bind\n",
      )
      expect(r.stderr).toContain("✗ app/off is disabled; run `supervisor enable app/off` first\n")
      // --quiet prints nothing on success, and everything on failure.
      expect(launch("start", "once", "--quiet")).toEqual({ status: 0, stdout: "", stderr: "" })
      const quiet = launch("start", "-q", "bad")
      expect(quiet.status).toBe(1)
      expect(quiet.stderr).toMatch(/^✗ app\/bad failed to start/)
      expect(await statusOf("app/bad")).toBe("errored")
    },
    T,
  )

  it(
    "leaves other flags, unknown IDs, warnings and another version to the CLI, starting nothing",
    async () => {
      expect(launch("supervisor", "start").status).toBe(0)
      withoutCli()
      // Each of these reaches the (missing) CLI bundle: the launcher fails to load it.
      for (const args of [
        ["start", "nope"],
        ["start", "web", "--delay", "1"],
        ["start", "web", "--quiet", "--quiet"],
        ["start", "-qf", "web"],
        ["start", "--group", "none"],
        ["start", "web", "--", "x"],
      ]) {
        const r = launch(...args)
        expect(r.status, args.join(" ")).not.toBe(0)
        expect(r.stderr, args.join(" ")).toMatch(/cli\.cjs/)
      }
      expect(await statusOf("app/web")).toBe("available") // never started (listed: its project is known)
      // A configuration with a warning: the CLI must print it.
      writeFileSync(
        join(proj, "supervisor.toml"),
        `${CONFIG}\n[daemons.old]\nrun = "x"\nexpected_port = [3999]\n`,
      )
      expect(launch("start", "web").stderr).toMatch(/cli\.cjs/)
      expect(await statusOf("app/web")).toBe("available") // never started (listed: its project is known)
      withCli()
      const warned = launch("start", "web")
      expect(warned.status, warned.stderr).toBe(0)
      expect(warned.stderr).toMatch(/warning: .*expected_port.*deprecated/)
      const unknown = launch("start", "nope")
      expect(unknown.status).toBe(1)
      expect(unknown.stderr).toMatch(/error: daemon nope not found/)
    },
    T,
  )

  it(
    "answers fallback to another version; streams a transcript's and a spinner's events",
    async () => {
      expect(launch("supervisor", "start").status).toBe(0)
      const version = (JSON.parse(launch("supervisor", "status", "--json").stdout) as { version: string })
        .version
      expect(await startFrom(request_("0.0.0-other", ["web"], "none"))).toEqual({
        status: 200,
        events: [{ fallback: true }],
      })
      expect(await statusOf("app/web")).toBe("available") // never started (listed: its project is known)
      const started = await startFrom(request_(version, ["web"], "lines"))
      // a transcript: each outcome as it is settled, then all of them
      const ready = { _tag: "Ready", id: "app/web", pid: expect.any(Number) }
      expect(started.events).toEqual([
        { waiting: [] }, // under way; then what the daemon waits for once it is spawned
        { waiting: [{ id: "app/web", what: "100ms" }] },
        { outcome: ready },
        { outcomes: [ready] },
      ])
      // Nothing left to wait for: a spinner has nothing to draw.
      const running = { _tag: "AlreadyRunning", id: "app/web", pid: expect.any(Number) }
      expect((await startFrom(request_(version, ["web"], "spinner"))).events).toEqual([
        { waiting: [] },
        { outcome: running },
        { outcomes: [running] },
      ])
      // A spinner starts from the list of what the start waits for, then hears the events.
      const forced = await startFrom({ ...request_(version, ["web"], "spinner"), force: true })
      expect(forced.events).toEqual([
        { waiting: [{ id: "app/web", what: "100ms" }] },
        { waiting: [{ id: "app/web", what: "100ms" }] },
        { outcome: ready },
        { outcomes: [ready] },
      ])
      expect((await startFrom({ version })).status).toBe(400)
    },
    T,
  )
})
