/**
 * Replicas through a real supervisor started by the built CLI (docs/replicas.md): `instances = 3`
 * runs api.1 to api.3 on distinct ports behind one slug, the proxy takes them in turn, and
 * `supervisor scale` to 5 and back to 1 while requests flow through the proxy fails none of them.
 */
import * as http from "node:http"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  apiPost,
  type DaemonSandbox,
  freePort,
  httpAnswer,
  isAlive,
  makeDaemonSandbox,
  proxyUserConfig,
  supervisorPids,
  tableRow,
  waitFor,
} from "./harness.js"
import { connectMcp } from "./mcpClient.js"

const T = 60_000
let sb: DaemonSandbox
let proxyPort = 0
let basePort = 0
let shop = ""
let pool = ""
let blocker: net.Server | undefined

// answers with the instance it is; on SIGTERM it stops taking connections and ends once the
// requests it has are answered (as a server behind a balancer does)
const SERVER_JS = `
const http = require("node:http")
const server = http.createServer((req, res) => {
  res.setHeader("content-type", "application/json")
  res.end(JSON.stringify({ id: process.env.ID, instance: process.env.INSTANCE, port: Number(process.env.PORT) }))
})
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening on " + process.env.PORT))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
`

interface Answer {
  readonly id: string
  readonly instance: string
  readonly port: number
}

const get = (agent: http.Agent | false, host = "shop.localhost") =>
  httpAnswer({ host: "127.0.0.1", port: proxyPort, path: "/", agent, headers: { host } })

/** The instances that answer `n` requests in a row through the proxy. */
const answering = async (n: number): Promise<Set<string>> => {
  const ids = new Set<string>()
  for (let i = 0; i < n; i++) {
    const r = await get(false)
    if (r.status !== 200) continue
    const a = JSON.parse(r.body) as Answer
    // {{ daemon.id }} and {{ daemon.instance }} rendered for each instance, PORT its own
    expect(a.id).toBe(`shop/api.${a.instance}`)
    ids.add(a.id)
  }
  return ids
}

/** Requests through the proxy from `workers` clients (kept-alive connections) until stopped. */
const load = (workers: number) => {
  let running = true
  const failures: Array<string> = []
  let served = 0
  const seen = new Set<string>()
  const loops = Array.from({ length: workers }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    while (running) {
      try {
        const r = await get(agent)
        if (r.status !== 200) failures.push(`${r.status} ${r.body.slice(0, 300)}`)
        else {
          served++
          seen.add((JSON.parse(r.body) as Answer).id)
        }
      } catch (e) {
        failures.push(String(e))
      }
    }
    agent.destroy()
  })
  return {
    seen,
    served: () => served,
    stop: async () => {
      running = false
      await Promise.all(loops)
      return { failures, served }
    },
  }
}

const listJson = (dir = shop) => {
  const r = sb.cli(["list", "--json"], dir)
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Array<{
    id: { qualified: string }
    status: { type: string }
    resolved_port: Array<number>
    pid: number | null
    instance?: { daemon: string; index: number; scaled?: number }
  }>
}

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proxyPort = await freePort()
  // shop/api.1 to api.5 take the ports from basePort up, pool/pool.N from basePort + 20: none the proxy's
  do basePort = await freePort()
  while (proxyPort >= basePort && proxyPort <= basePort + 30)
  shop = sb.project(
    "shop",
    [
      "[daemons.api]",
      'run = "exec node server.cjs"',
      "instances = 3",
      `port = { expect = [${basePort}], bump = true }`,
      'ready_output = "listening"',
      'env = { ID = "{{ daemon.id }}", INSTANCE = "{{ daemon.instance }}" }',
      "[daemons.front]",
      'run = "exec sleep 300"',
      'depends = ["api"]',
      "ready_delay = 0",
      "",
    ].join("\n"),
  )
  pool = sb.project(
    "pool",
    [
      "[daemons.pool]",
      'run = "exec node server.cjs"',
      "instances = 3",
      `port = { expect = [${basePort + 20}], bump = true }`,
      'ready_output = "listening"',
      'env = { ID = "{{ daemon.id }}", INSTANCE = "{{ daemon.instance }}" }',
      'restart = "never"',
      "[daemons.pool.health]",
      // instance 2 fails its check: unhealthy, and (restart = "never") left so
      'cmd = "test {{ daemon.instance }} != 2"',
      'interval = "200ms"',
      'timeout = "200ms"',
      "failures = 1",
      "",
    ].join("\n"),
  )
  sb.write({
    "pool/server.cjs": SERVER_JS,
    "shop/server.cjs": SERVER_JS,
    "home/.config/supervisor/config.toml": proxyUserConfig(proxyPort, {
      shop: { dir: shop, daemon: "api" },
      pool: { dir: pool },
    }),
  })
  // api.2's own port is taken: it moves up onto api.3's, which api.3 must then leave to it
  // (a port some other process holds already is taken just as well)
  const server = net.createServer()
  blocker = await new Promise<net.Server | undefined>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      e.code === "EADDRINUSE" ? resolve(undefined) : reject(e),
    )
    server.listen(basePort + 1, "127.0.0.1", () => resolve(server))
  })
  // the supervisor (and its proxy) first: the proxy binds its port before any daemon starts
  const started = sb.cli(["supervisor", "start"], sb.root)
  expect(started.status, started.stderr).toBe(0)
}, T)
afterAll(() => {
  blocker?.close()
  sb.destroy()
})

describe("replicas (e2e)", () => {
  it(
    "start api runs api.1 to api.3, each with its own port, pid, status and template values",
    async () => {
      const started = await sb.cliAsync(["start", "api"], shop)
      expect(started.status, started.stderr).toBe(0)
      for (const i of [1, 2, 3]) expect(started.stdout).toContain(`shop/api.${i} is running`)
      const entries = listJson().filter((e) => e.instance?.daemon === "shop/api")
      expect(entries.map((e) => [e.id.qualified, e.instance!.index, e.status.type])).toEqual([
        ["shop/api.1", 1, "running"],
        ["shop/api.2", 2, "running"],
        ["shop/api.3", 3, "running"],
      ])
      const ports = entries.map((e) => e.resolved_port[0])
      expect(new Set(ports).size).toBe(3)
      expect(ports[0]).toBe(basePort)
      expect(ports).not.toContain(basePort + 1)
      expect(new Set(entries.map((e) => e.pid)).size).toBe(3)
      // the text listing groups them under their daemon
      const text = sb.cli(["list"], shop)
      expect(text.status, text.stderr).toBe(0)
      expect(text.stdout).toMatch(/shop\/api\s+3 instances, 3 running/)
      expect(tableRow(text.stdout, "shop/api.2")?.[1]).toBe("running")
    },
    T,
  )

  it(
    "the proxy takes the ready instances in turn: three requests, three instances",
    async () => {
      const ids = await answering(3)
      expect([...ids].sort()).toEqual(["shop/api.1", "shop/api.2", "shop/api.3"])
    },
    T,
  )

  it(
    "scale to 5 then to 1 while requests flow through the proxy: none fails",
    async () => {
      const traffic = load(4)
      await waitFor("requests served before scaling", () => traffic.served() >= 20, { timeout: 20_000 })
      const up = await sb.cliAsync(["scale", "api", "5"], shop)
      expect(up.status, up.stderr).toBe(0)
      expect(up.stdout).toContain("shop/api scaled from 3 to 5")
      await waitFor("all 5 instances answering through the proxy", () => traffic.seen.size === 5, {
        timeout: 20_000,
      })
      const down = await sb.cliAsync(["scale", "api", "1", "--json"], shop)
      expect(down.status, down.stderr).toBe(0)
      const result = JSON.parse(down.stdout) as {
        previous: number
        count: number
        stopped: Array<{ id: string }>
      }
      expect(result).toMatchObject({ previous: 5, count: 1 })
      // the highest first
      expect(result.stopped.map((s) => s.id)).toEqual([
        "shop/api.5",
        "shop/api.4",
        "shop/api.3",
        "shop/api.2",
      ])
      const servedAtOne = traffic.served()
      await waitFor("requests served after scaling to 1", () => traffic.served() >= servedAtOne + 20, {
        timeout: 20_000,
      })
      const { failures, served } = await traffic.stop()
      expect(failures).toEqual([])
      expect(served).toBeGreaterThan(40)
      expect([...(await answering(4))]).toEqual(["shop/api.1"])
      // the count scale set is in force: the instances configured above it are not listed
      const listed = listJson().filter((e) => e.instance?.daemon === "shop/api")
      expect(listed.map((e) => [e.id.qualified, e.status.type, e.instance?.scaled])).toEqual([
        ["shop/api.1", "running", 1],
      ])
      const text = sb.cli(["list"], shop)
      expect(text.stdout).toMatch(/shop\/api\s+1 instance, 1 running/)
    },
    T,
  )

  it(
    "a supervisor that restarts keeps the count of the instances it adopts",
    async () => {
      const before = listJson().find((e) => e.id.qualified === "shop/api.1")!
      const restarted = await sb.cliAsync(["supervisor", "start", "--force"], shop)
      expect(restarted.status, restarted.stderr).toBe(0)
      const listed = listJson().filter((e) => e.instance?.daemon === "shop/api")
      // api.1 adopted (the same process), the count 1 still in force: api.2 and api.3 not listed
      expect(listed.map((e) => [e.id.qualified, e.status.type, e.instance?.scaled, e.pid])).toEqual([
        ["shop/api.1", "running", 1, before.pid],
      ])
      // and `start api` starts the scaled count, not the configured 3
      const started = await sb.cliAsync(["start", "api"], shop)
      expect(started.status, started.stderr).toBe(0)
      expect(
        listJson()
          .filter((e) => e.instance?.daemon === "shop/api" && e.status.type === "running")
          .map((e) => e.id.qualified),
      ).toEqual(["shop/api.1"])
    },
    T,
  )

  it(
    "stop api stops every instance; the next start runs the configured count again",
    async () => {
      const up = await sb.cliAsync(["scale", "api", "2"], shop)
      expect(up.status, up.stderr).toBe(0)
      const stopped = await sb.cliAsync(["stop", "api"], shop)
      expect(stopped.status, stopped.stderr).toBe(0)
      expect(listJson().filter((e) => e.status.type === "running")).toEqual([])
      const started = await sb.cliAsync(["start", "api.2"], shop)
      expect(started.status, started.stderr).toBe(0)
      expect(
        listJson()
          .filter((e) => e.status.type === "running")
          .map((e) => e.id.qualified),
      ).toEqual(["shop/api.2"])
      const all = await sb.cliAsync(["start", "api"], shop)
      expect(all.status, all.stderr).toBe(0)
      expect(
        listJson()
          .filter((e) => e.status.type === "running")
          .map((e) => e.id.qualified)
          .sort(),
      ).toEqual(["shop/api.1", "shop/api.2", "shop/api.3"])
    },
    T,
  )

  it(
    "Scale is a command of the API (POST /api/commands), answered through its schema",
    async () => {
      const answer = await apiPost<{
        daemon: string
        previous: number
        count: number
        started: Array<{ id: string }>
      }>(sb.stateDir, "/api/commands", { _tag: "Scale", id: "shop/api", count: 2 })
      expect(answer).toMatchObject({ daemon: "shop/api", previous: 3, count: 2 })
      expect(answer!.started.map((o) => o.id)).toEqual(["shop/api.1", "shop/api.2"])
      // a count out of range is refused by the command's schema: no 200, nothing scaled
      const refused = await apiPost(sb.stateDir, "/api/commands", { _tag: "Scale", id: "shop/api", count: 0 })
      expect(refused).toBeUndefined()
      expect(
        listJson()
          .filter((e) => e.status.type === "running")
          .map((e) => e.id.qualified),
      ).toEqual(["shop/api.1", "shop/api.2"])
    },
    T,
  )

  it(
    "the proxy skips an unhealthy instance",
    async () => {
      const started = await sb.cliAsync(["start", "pool"], pool)
      expect(started.status, started.stderr).toBe(0)
      await waitFor(
        "pool.2 unhealthy",
        () => listJson(pool).find((e) => e.id.qualified === "pool/pool.2")?.status.type === "unhealthy",
        { timeout: 20_000 },
      )
      const ids = new Set<string>()
      for (let i = 0; i < 12; i++) {
        const r = await get(false, "pool.localhost")
        expect(r.status, r.body).toBe(200)
        ids.add((JSON.parse(r.body) as Answer).id)
      }
      expect([...ids].sort()).toEqual(["pool/pool.1", "pool/pool.3"])
      const stopped = await sb.cliAsync(["stop", "pool"], pool)
      expect(stopped.status, stopped.stderr).toBe(0)
    },
    T,
  )

  it(
    "MCP's scale tool scales as the CLI does, its answer the ScaleResult",
    async () => {
      const client = await connectMcp(sb, shop)
      try {
        const r = (await client.callTool({ name: "scale", arguments: { id: "api", count: 3 } })) as {
          isError?: boolean
          structuredContent?: { daemon: string; previous: number; count: number }
        }
        expect(r.isError, JSON.stringify(r)).toBeFalsy()
        expect(r.structuredContent).toMatchObject({ daemon: "shop/api", previous: 2, count: 3 })
        const bad = (await client.callTool({ name: "scale", arguments: { id: "api", count: 65 } })) as {
          isError?: boolean
        }
        expect(bad.isError).toBe(true)
      } finally {
        await client.close()
      }
      expect(
        listJson()
          .filter((e) => e.status.type === "running")
          .map((e) => e.id.qualified)
          .sort(),
      ).toEqual(["shop/api.1", "shop/api.2", "shop/api.3"])
    },
    T,
  )

  it("logs api reads every instance's lines, each named; status api asks for one instance", async () => {
    const logs = await sb.cliAsync(["logs", "api", "-n", "100", "--no-timestamp"], shop)
    expect(logs.status, logs.stderr).toBe(0)
    for (const i of [1, 2, 3]) expect(logs.stdout).toMatch(new RegExp(`shop/api\\.${i} listening on \\d+`))
    const status = await sb.cliAsync(["status", "api"], shop)
    expect(status.status).toBe(2)
    expect(status.stderr).toContain("shop/api runs as instances (api.1, api.2, api.3): name one")
    const one = await sb.cliAsync(["status", "api.2"], shop)
    expect(one.status, one.stderr).toBe(0)
    expect(one.stdout).toContain("Name: shop/api.2")
  })

  it(
    "a dependency on api waits for every instance to be ready",
    async () => {
      const stopped = await sb.cliAsync(["stop", "api"], shop)
      expect(stopped.status, stopped.stderr).toBe(0)
      const started = await sb.cliAsync(["start", "front"], shop)
      expect(started.status, started.stderr).toBe(0)
      const out = started.stdout
      expect(out).toContain(
        "shop/front waiting for shop/api.1 to be ready, shop/api.2 to be ready, shop/api.3 to be ready",
      )
      const front = out.indexOf("shop/front is running")
      for (const i of [1, 2, 3]) {
        const at = out.indexOf(`shop/api.${i} is running`)
        expect(at).toBeGreaterThanOrEqual(0)
        expect(at).toBeLessThan(front)
      }
    },
    T,
  )

  it(
    "a supervisor that crashed is followed by one that adopts the instances as instances",
    async () => {
      const before = listJson().filter((e) => e.instance?.daemon === "shop/api")
      expect(before.map((e) => e.status.type)).toEqual(["running", "running", "running"])
      const [supervisor] = supervisorPids(sb.stateDir)
      process.kill(supervisor!, "SIGKILL")
      await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
      // any command brings a new supervisor up, which takes the instances back
      const after = listJson().filter((e) => e.instance?.daemon === "shop/api")
      expect(after.map((e) => [e.id.qualified, e.instance?.index, e.status.type, e.pid])).toEqual(
        before.map((e) => [e.id.qualified, e.instance?.index, "running", e.pid]),
      )
      // and its proxy balances the slug over them again
      const ids = await waitFor("the proxy answering from every instance", async () => {
        const seen = await answering(3).catch(() => new Set<string>())
        return seen.size === 3 ? seen : undefined
      })
      expect([...ids].sort()).toEqual(["shop/api.1", "shop/api.2", "shop/api.3"])
    },
    T,
  )
})
