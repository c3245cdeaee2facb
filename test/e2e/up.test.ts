/**
 * CI mode (docs/ci.md) through the built CLI against a real supervisor: `up` starts a stack and
 * waits until it is ready, prints a summary and exits 0 only when every daemon is up; a failing
 * daemon, a `--timeout` and `--exit-on-failure` make it exit non-zero naming why; `down` stops the
 * project's daemons, dependents first.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { StopResults, UpSummary } from "../../src/domain/CliOutput.js"
import { commandCount } from "./commandCounts.js"
import {
  BIN,
  type DaemonSandbox,
  daemonPids,
  freePort,
  makeDaemonSandbox,
  onTerminal,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 60_000
const strict = { onExcessProperty: "error" } as const
const decodeSummary = (text: string) => Schema.decodeUnknownSync(UpSummary, strict)(JSON.parse(text))
const decodeStops = (text: string) => Schema.decodeUnknownSync(StopResults, strict)(JSON.parse(text))

/** A TCP server on $PORT: ready once it accepts connections. */
const TCP = `require("node:net").createServer().listen(Number(process.env.PORT), "127.0.0.1")\n`

/** `db` listens on its port (checked by ready_port); `web` depends on it. */
const stack = (port: number) => `
[daemons.db]
run = ${JSON.stringify(`exec "${process.execPath}" tcp.js`)}
port = ${port}
ready_port = "{{ daemons.db.port }}"

[daemons.web]
run = "echo web up; exec sleep 300"
ready_delay = 0.2
depends = ["db"]
`

/** Exits 1 after a line, no retries. */
const BAD = `
[daemons.bad]
run = "echo 'cannot open config: missing.toml'; exit 1"
ready_delay = 1
`

/** Prints a line, then never the one its readiness waits for. */
const SLOW = `
[daemons.slow]
run = "echo 'still warming up'; exec sleep 300"
ready_output = "^listening$"
`

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
  // poll fast: the tests wait on real servers
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
})
afterEach(() => sb.destroy())

const project = (toml: string) => {
  const dir = sb.project("app", toml)
  writeFileSync(join(dir, "tcp.js"), TCP)
  return dir
}

describe("supervisor up and down (e2e)", () => {
  it(
    "a passing stack: exit 0, a summary with both ready and the port; --json decodes; down stops them, dependents first",
    async () => {
      const port = await freePort()
      const dir = project(stack(port))
      expect((await sb.cliAsync(["supervisor", "start"], dir)).status).toBe(0)
      const starts = await commandCount(sb.stateDir, "Start", "cli")
      const r = await sb.cliAsync(["up", "--timeout", "60s"], dir)
      expect(r.status, r.stderr).toBe(0)
      // the one command protocol: up is a Start through Control
      expect(await commandCount(sb.stateDir, "Start", "cli")).toBe(starts + 1)
      const db = tableRow(r.stdout, "app/db")
      const web = tableRow(r.stdout, "app/web")
      expect(db?.slice(0, 2), r.stdout).toEqual(["app/db", "ready"])
      expect(db?.[2]).toMatch(/^\d+\.\ds$/)
      expect(db?.[3]).toBe(String(port))
      expect(web?.slice(0, 2), r.stdout).toEqual(["app/web", "ready"])
      expect(r.stdout).toContain("all 2 daemons are up")
      // the progress went to stderr, the summary alone to stdout
      expect(r.stderr).toContain("app/web waiting for app/db to be ready")

      const again = await sb.cliAsync(["up", "--json"], dir)
      expect(again.status, again.stderr).toBe(0)
      const summary = decodeSummary(again.stdout)
      expect(summary).toMatchObject({ ok: true, timed_out: false, stopped: [] })
      expect(summary.daemons.map((d) => [d.id, d.status])).toEqual([
        ["app/db", "running"],
        ["app/web", "running"],
      ])

      const down = await sb.cliAsync(["down"], dir)
      expect(down.status, down.stderr).toBe(0)
      const lines = down.stdout.trim().split("\n")
      expect(lines).toEqual(["✓ app/web stopped", "✓ app/db stopped"])
      expect(daemonPids(sb.stateDir)).toEqual([])
      const downJson = await sb.cliAsync(["down", "--json"], dir)
      expect(downJson.status, downJson.stderr).toBe(0)
      expect(decodeStops(downJson.stdout).every((s) => !s.was_running)).toBe(true)
    },
    T,
  )

  it(
    "the JSON summary times each daemon from the start of up: a dependent is ready after its dependency",
    async () => {
      const dir = project(stack(await freePort()))
      const r = await sb.cliAsync(["up", "--json"], dir)
      expect(r.status, r.stderr).toBe(0)
      const summary = decodeSummary(r.stdout)
      const [db, web] = summary.daemons
      expect([db?.id, db?.status, web?.id, web?.status]).toEqual(["app/db", "ready", "app/web", "ready"])
      expect(db?.ready_ms).not.toBeNull()
      expect(web?.ready_ms ?? -1).toBeGreaterThanOrEqual(db?.ready_ms ?? Number.POSITIVE_INFINITY)
      expect(summary.elapsed_ms).toBeGreaterThanOrEqual(web?.ready_ms ?? Number.POSITIVE_INFINITY)
      expect(db?.pid).toBeGreaterThan(0)
      expect(await sb.cliAsync(["down"], dir)).toMatchObject({ status: 0 })
    },
    T,
  )

  it(
    "a failing daemon: non-zero exit, the summary names the failure and its last line",
    async () => {
      const dir = project(stack(await freePort()) + BAD)
      const r = await sb.cliAsync(["up"], dir)
      expect(r.status, r.stdout + r.stderr).toBe(1)
      expect(tableRow(r.stdout, "app/bad")?.slice(0, 2), r.stdout).toEqual(["app/bad", "failed"])
      expect(tableRow(r.stdout, "app/bad")?.at(-1)).toBe("cannot open config: missing.toml")
      expect(r.stdout).toContain("✗ app/bad failed: app/bad exited with code 1")
      expect(tableRow(r.stdout, "app/db")?.[1]).toBe("ready")
      expect(r.stdout).toContain("1 of 3 daemons not up")

      const json = await sb.cliAsync(["up", "bad", "--json"], dir)
      expect(json.status).toBe(1)
      const summary = decodeSummary(json.stdout)
      expect(summary.ok).toBe(false)
      expect(summary.daemons).toHaveLength(1)
      expect(summary.daemons[0]).toMatchObject({
        id: "app/bad",
        status: "failed",
        ready_ms: null,
        output: ["cannot open config: missing.toml"],
      })
      expect(await sb.cliAsync(["down"], dir)).toMatchObject({ status: 0 })
      expect(daemonPids(sb.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "--timeout 2s with a daemon that never becomes ready: exit 124, reported as not ready with its last line; it keeps starting until down",
    async () => {
      const dir = project(SLOW)
      const r = await sb.cliAsync(["up", "--timeout", "2s"], dir)
      expect(r.status, r.stdout + r.stderr).toBe(124)
      const row = tableRow(r.stdout, "app/slow")
      expect(row?.slice(0, 2), r.stdout).toEqual(["app/slow", "not ready"])
      expect(row?.at(-1)).toBe("still warming up")
      expect(r.stdout).toContain("not ready when the wait timed out (--timeout 2s)")
      expect(r.stdout).toContain("the wait timed out after")

      expect(daemonPids(sb.stateDir, "app/slow").length).toBeGreaterThan(0)

      // up again while it is still starting: not ready either (up does not wait for a start it did not make)
      const again = await sb.cliAsync(["up", "--json"], dir)
      expect(again.status, again.stderr).toBe(1)
      expect(decodeSummary(again.stdout).daemons).toEqual([
        expect.objectContaining({ id: "app/slow", status: "not_ready", output: ["still warming up"] }),
      ])

      expect((await sb.cliAsync(["down"], dir)).status).toBe(0)
      const json = await sb.cliAsync(["up", "--timeout", "2s", "--json"], dir)
      expect(json.status).toBe(124)
      const summary = decodeSummary(json.stdout)
      expect(summary).toMatchObject({ ok: false, timed_out: true })
      expect(summary.daemons).toEqual([
        expect.objectContaining({ id: "app/slow", status: "not_ready", ready_ms: null }),
      ])
      // the lines of this run only, not the earlier one's
      expect(summary.daemons[0]?.output).toEqual(["still warming up"])
      expect(summary.elapsed_ms).toBeGreaterThanOrEqual(2000)

      const down = await sb.cliAsync(["down", "--json"], dir)
      expect(decodeStops(down.stdout)).toEqual([{ id: "app/slow", was_running: true, killed: false }])
      expect(daemonPids(sb.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "--exit-on-failure: the first failure stops what up started and up exits non-zero",
    async () => {
      // db is never ready (its line never comes): only --exit-on-failure ends the wait
      const dir = project(`
[daemons.db]
run = "echo 'db booting'; exec sleep 300"
ready_output = "^accepting connections$"

[daemons.web]
run = "exec sleep 300"
depends = ["db"]
${BAD}`)
      const r = await sb.cliAsync(["up", "--exit-on-failure", "--json"], dir)
      expect(r.status, r.stderr).toBe(1)
      const summary = decodeSummary(r.stdout)
      expect(summary).toMatchObject({ ok: false, timed_out: false })
      const status = Object.fromEntries(summary.daemons.map((d) => [d.id, d.status]))
      expect(status).toEqual({ "app/db": "not_ready", "app/web": "not_ready", "app/bad": "failed" })
      expect(summary.stopped).toContainEqual({ id: "app/db", was_running: true, killed: false })
      expect(summary.stopped.map((s) => s.id).sort()).toEqual(["app/bad", "app/db", "app/web"])
      expect(daemonPids(sb.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "on a terminal: the spinner while it waits, then the summary",
    async () => {
      const dir = project(`
[daemons.gated]
run = "while [ ! -e go ]; do sleep 0.1; done; echo up; exec sleep 300"
ready_output = "^up$"
`)
      const term = onTerminal([process.execPath, BIN, "up"], { cwd: dir, env: sb.env })
      try {
        await waitFor("the spinner of gated", () =>
          /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] app\/gated waiting for output matching/.test(term.output()),
        )
        writeFileSync(join(dir, "go"), "")
        expect(await term.exited, term.output()).toBe(0)
        expect(term.output()).toMatch(/app\/gated +ready +\d+\.\ds/)
        expect(term.output()).toContain("✓ 1 daemon is up after")
      } finally {
        term.kill()
      }
    },
    T,
  )

  it(
    "a bad --timeout is a usage error naming the flag",
    async () => {
      const dir = project(SLOW)
      const r = await sb.cliAsync(["up", "--timeout", "soon"], dir)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain("--timeout: invalid duration")
    },
    T,
  )
})
