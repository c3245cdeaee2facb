/**
 * The command protocol through a real supervisor (docs/api.md, "Commands"): a selection stopped
 * from the API (POST /api/commands) and from the CLI stops dependents before their dependencies
 * and only the project it names (two projects with the same daemon names); each front-end's action
 * is counted in /metrics as a command with its source.
 */
import { request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiPost, type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 120_000
const STACK = `[daemons.db]\nrun = "exec sleep 300"\nready_delay = 0\n\n[daemons.cache]\nrun = "exec sleep 300"\nready_delay = 0\n\n[daemons.api]\nrun = "exec sleep 300"\ndepends = ["db", "cache"]\nready_delay = 0\n\n[daemons.web]\nrun = "exec sleep 300"\ndepends = ["api"]\nready_delay = 0\n`

/** GET over the supervisor's socket: the status and the body as text. */
const socketGet = (stateDir: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath: join(stateDir, "sock", "api.sock"), path, method: "GET" }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (body += c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

const commandCount = async (stateDir: string, command: string, source: string) => {
  const r = await socketGet(stateDir, "/metrics")
  expect(r.status, r.body).toBe(200)
  const line = r.body
    .split("\n")
    .find((l) => l.startsWith(`supervisor_commands_total{command="${command}",source="${source}"}`))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}

/** Dependents before their dependencies: web, then api, then db and cache (one level, either order). */
const expectStopOrder = (order: ReadonlyArray<string>, ns: string) => {
  expect(order.slice(0, 2)).toEqual([`${ns}/web`, `${ns}/api`])
  expect([...order.slice(2)].sort()).toEqual([`${ns}/cache`, `${ns}/db`])
}

describe("the command protocol (e2e)", () => {
  let sb: DaemonSandbox
  let one: string
  let two: string
  const statuses = (dir: string) =>
    Object.fromEntries(
      (
        JSON.parse(sb.cli(["list", "--json"], dir).stdout) as Array<{
          id: { qualified: string }
          status: { type: string }
        }>
      ).map((e) => [e.id.qualified, e.status.type]),
    )
  const startBoth = () => {
    for (const dir of [one, two]) {
      const r = sb.cli(["start", "--all"], dir)
      expect(r.status, r.stderr).toBe(0)
    }
  }

  beforeAll(() => {
    sb = makeDaemonSandbox()
    one = sb.project("one", STACK)
    two = sb.project("two", STACK)
  }, T)
  afterAll(() => sb.destroy())

  it(
    "the CLI's stop: dependents first, only the project of its directory, counted as a Stop from the cli",
    async () => {
      startBoth()
      const before = await commandCount(sb.stateDir, "Stop", "cli")
      const r = sb.cli(["stop", "db", "web", "cache", "api", "--json"], one)
      expect(r.status, r.stderr).toBe(0)
      const order = (JSON.parse(r.stdout) as Array<{ id: string; was_running: boolean }>).map((s) => s.id)
      expectStopOrder(order, "one")
      const now = statuses(one)
      for (const name of ["db", "cache", "api", "web"]) {
        expect(now[`one/${name}`]).toBe("stopped")
        expect(now[`two/${name}`]).toBe("running")
      }
      expect(await commandCount(sb.stateDir, "Stop", "cli")).toBe(before + 1)
    },
    T,
  )

  it(
    "the CLI's start and restart are Start and Restart commands from the cli (no definitions sent, no Run)",
    async () => {
      const counts = async () => ({
        Start: await commandCount(sb.stateDir, "Start", "cli"),
        Restart: await commandCount(sb.stateDir, "Restart", "cli"),
        Run: await commandCount(sb.stateDir, "Run", "cli"),
      })
      expect(sb.cli(["supervisor", "start"], two).status).toBe(0)
      const before = await counts()
      // the quick path (plain `start IDS`), and the full CLI (a readiness override is its own)
      const quick = sb.cli(["start", "web"], two)
      expect(quick.status, quick.stderr).toBe(0)
      const full = sb.cli(["start", "web", "--delay", "0", "--json"], two)
      expect(full.status, full.stderr).toBe(0)
      expect(JSON.parse(full.stdout)).toEqual([
        { _tag: "AlreadyRunning", id: "two/web", pid: expect.any(Number) },
      ])
      const restarted = sb.cli(["restart", "api", "--json"], two)
      expect(restarted.status, restarted.stderr).toBe(0)
      // api restarted; its dependencies, running, were left as they were
      expect(JSON.parse(restarted.stdout)).toEqual(
        expect.arrayContaining([
          { _tag: "Ready", id: "two/api", pid: expect.any(Number) },
          { _tag: "AlreadyRunning", id: "two/db", pid: expect.any(Number) },
        ]),
      )
      expect(await counts()).toEqual({
        Start: before.Start + 2,
        Restart: before.Restart + 1,
        Run: before.Run,
      })
      // the dependencies came with web, from the directory's configuration, in its project only
      const now = statuses(two)
      for (const name of ["db", "cache", "api", "web"]) expect(now[`two/${name}`]).toBe("running")
      const stopped = sb.cli(["stop", "--all"], two)
      expect(stopped.status, stopped.stderr).toBe(0)
    },
    T,
  )

  it(
    "the API's Stop command: the same order and scope from a directory, counted as a Stop from the api",
    async () => {
      startBoth()
      const before = await commandCount(sb.stateDir, "Stop", "api")
      const stopped = await apiPost<Array<{ id: string; was_running: boolean }>>(
        sb.stateDir,
        "/api/commands",
        {
          _tag: "Stop",
          selection: { ids: ["db", "web", "cache", "api"], from: { _tag: "Directory", cwd: two } },
          reason: "api",
        },
      )
      expectStopOrder(stopped?.map((s) => s.id) ?? [], "two")
      expect(stopped?.every((s) => s.was_running)).toBe(true)
      const now = statuses(two)
      for (const name of ["db", "cache", "api", "web"]) {
        expect(now[`two/${name}`]).toBe("stopped")
        expect(now[`one/${name}`]).toBe("running")
      }
      // the seed's route is an alias of the same command
      expect(await apiPost(sb.stateDir, "/api/daemons/one%2Fweb/stop", {})).toEqual({ ok: true })
      expect(statuses(one)["one/web"]).toBe("stopped")
      expect(await commandCount(sb.stateDir, "Stop", "api")).toBe(before + 2)
    },
    T,
  )
})
