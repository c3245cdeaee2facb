/**
 * The reverse proxy through a real supervisor started by the built CLI (plain HTTP): routing by
 * Host to a real server daemon, start on request (one start for concurrent requests), streamed
 * responses, WebSockets both ways, keep-alive to the daemon, and the error pages. A start on
 * request is a command of the protocol, counted in /metrics.
 */

import { readFileSync } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandCount } from "./commandCounts.js"
import { type DaemonSandbox, freePort, makeDaemonSandbox, proxyUserConfig, waitFor } from "./harness.js"
import { clientFrame, SERVER_JS, serverFrames } from "./proxyFixture.js"

const T = 40_000
let sb: DaemonSandbox
let port = 0
let shop = ""

interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

const get = (host: string, path = "/", options: { agent?: http.Agent; accept?: string } = {}) =>
  new Promise<Reply>((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        agent: options.agent ?? false,
        headers: { host, ...(options.accept === undefined ? {} : { accept: options.accept }) },
      },
      (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on("error", reject)
    req.end()
  })

const starts = () =>
  readFileSync(join(shop, "starts.log"), "utf8")
    .split("\n")
    .filter((l) => l !== "")

beforeAll(async () => {
  sb = makeDaemonSandbox()
  port = await freePort()
  shop = sb.project(
    "shop",
    [
      "[daemons.web]",
      'run = "exec node server.cjs"',
      'ready_output = "listening"',
      "[daemons.broken]",
      `run = "echo boom-before-exit; exit 3"`,
      "ready_delay = 0",
      "[daemons.slow]",
      'run = "exec sleep 300"',
      'ready_output = "never printed"',
      "",
    ].join("\n"),
  )
  sb.write({
    "shop/server.cjs": SERVER_JS,
    "home/.config/supervisor/config.toml": proxyUserConfig(
      port,
      { shop: { dir: shop, daemon: "web" }, broken: { dir: shop }, slow: { dir: shop } },
      { proxy: ['auto_start_timeout = "3s"'] },
    ),
  })
  const started = sb.cli(["supervisor", "start"], sb.root)
  expect(started.status, started.stderr).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("the reverse proxy (e2e)", () => {
  it(
    "concurrent requests for a stopped daemon start it once, are held until it is ready, then are served by Host",
    async () => {
      const before = await commandCount(sb.stateDir, "Start", "proxy")
      const replies = await Promise.all(Array.from({ length: 6 }, () => get("shop.localhost")))
      for (const r of replies) expect(r.status, r.body).toBe(200)
      expect(starts()).toHaveLength(1)
      // the one start was a Start command sent to the supervisor's one handler, from the proxy
      expect((await commandCount(sb.stateDir, "Start", "proxy")) - before).toBe(1)
      const echoed = JSON.parse(replies[0]!.body) as { headers: Record<string, string> }
      expect(echoed.headers).toMatchObject({
        host: "shop.localhost",
        "x-forwarded-host": "shop.localhost",
        "x-forwarded-proto": "http",
        "x-forwarded-for": "127.0.0.1",
        "x-supervisor-hops": "1",
      })
      // hop-by-hop headers of the daemon's response are not passed on
      expect(replies[0]!.headers["keep-alive"]).toBeUndefined()
    },
    T,
  )

  it("keeps connections alive on both sides: one client connection, one daemon connection", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const a = JSON.parse((await get("shop.localhost:1234", "/a", { agent })).body) as { upstreamPort: number }
    const b = JSON.parse((await get("shop.localhost", "/b", { agent })).body) as { upstreamPort: number }
    expect(b.upstreamPort).toBe(a.upstreamPort)
    agent.destroy()
  })

  it("streams a response: its first chunk arrives before it ends", async () => {
    const first = await new Promise<{ res: http.IncomingMessage; chunk: string }>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        path: "/stream",
        headers: { host: "shop.localhost" },
      })
      req.on("response", (res) =>
        res.setEncoding("utf8").once("data", (chunk: string) => resolve({ res, chunk })),
      )
      req.on("error", reject)
      req.end()
    })
    expect(first.chunk).toBe("first\n")
    let rest = ""
    let ended = false
    first.res.on("data", (d: string) => {
      rest += d
    })
    first.res.on("end", () => {
      ended = true
    })
    expect(ended).toBe(false)
    expect((await get("shop.localhost", "/release")).body).toBe("released")
    await waitFor("the end of the stream", () => ended)
    expect(rest).toBe("last\n")
  })

  it("carries a large upload to the daemon whole", async () => {
    const size = 8 * 1024 * 1024
    const counted = await new Promise<string>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        path: "/upload",
        method: "POST",
        headers: { host: "shop.localhost" },
      })
      req.on("response", (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        res.on("end", () => resolve(body))
      })
      req.on("error", reject)
      const chunk = Buffer.alloc(64 * 1024, 120)
      for (let sent = 0; sent < size; sent += chunk.length) req.write(chunk)
      req.end()
    })
    expect(Number(counted)).toBe(size)
  })

  it("passes a WebSocket through both ways", async () => {
    const socket = net.connect({ host: "127.0.0.1", port })
    let data = Buffer.alloc(0)
    socket.on("data", (d: Buffer) => {
      data = Buffer.concat([data, d])
    })
    socket.write(
      "GET /ws HTTP/1.1\r\nHost: shop.localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    )
    const frames = () => {
      const end = data.indexOf("\r\n\r\n")
      return end < 0 ? [] : serverFrames(data.subarray(end + 4))
    }
    await waitFor("the server's greeting", () => frames().includes("hello from server"))
    expect(data.toString("latin1")).toMatch(/^HTTP\/1\.1 101 /)
    socket.write(clientFrame("ping"))
    await waitFor("the echo", () => frames().includes("echo:ping"))
    socket.destroy()
  })

  it(
    "routes a slug added while the supervisor runs, and stops routing it once removed",
    async () => {
      expect((await get("live.localhost", "/", { accept: "text/plain" })).status).toBe(404)
      const added = sb.cli(["proxy", "add", "live", "--daemon", "web"], shop)
      expect(added.status, added.stderr).toBe(0)
      const served = await waitFor("the new slug served", async () => {
        const r = await get("live.localhost", "/hello")
        return r.status === 200 ? r : undefined
      })
      expect(JSON.parse(served.body)).toMatchObject({ url: "/hello", headers: { host: "live.localhost" } })
      const removed = sb.cli(["proxy", "remove", "live"], shop)
      expect(removed.status, removed.stderr).toBe(0)
      const gone = await waitFor("the removed slug unknown", async () => {
        const r = await get("live.localhost", "/", { accept: "text/plain" })
        return r.status === 404 ? r : undefined
      })
      expect(gone.body).toContain("No slug live is configured.")
    },
    T,
  )

  it("answers an unknown slug with 404 naming it and listing the known ones; no Host is 400", async () => {
    const r = await get("nope.localhost")
    expect(r.status).toBe(404)
    expect(r.headers["content-type"]).toMatch(/text\/html/)
    expect(r.body).toContain("nope")
    expect(r.body).toContain("shop.localhost")
    const text = await get("nope.localhost", "/", { accept: "text/plain" })
    expect(text.headers["content-type"]).toMatch(/text\/plain/)
    expect(text.body).toMatch(/^404 Not Found/)
    const raw = await new Promise<string>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port }, () => s.write("GET / HTTP/1.0\r\n\r\n"))
      let out = ""
      s.setEncoding("utf8").on("data", (d: string) => {
        out += d
      })
      s.on("close", () => resolve(out))
    })
    expect(raw).toMatch(/^HTTP\/1\.[01] 400 /)
  })

  it(
    "a daemon that cannot be started is 502 with its status and last log lines",
    async () => {
      const r = await get("broken.localhost", "/", { accept: "text/plain" })
      expect(r.status, r.body).toBe(502)
      expect(r.body).toContain("shop/broken")
      expect(r.body).toContain("boom-before-exit")
    },
    T,
  )

  it(
    "a daemon not ready within auto_start_timeout is 504",
    async () => {
      const r = await get("slow.localhost", "/", { accept: "text/plain" })
      expect(r.status, r.body).toBe(504)
      expect(r.body).toContain("auto_start_timeout")
    },
    T,
  )
})

describe("the reverse proxy's port in use (e2e)", () => {
  it(
    "is said by supervisor status and the supervisor's log; the supervisor runs on",
    async () => {
      const other = makeDaemonSandbox()
      const busy = net.createServer()
      try {
        await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve))
        const taken = (busy.address() as net.AddressInfo).port
        other.write({
          "home/.config/supervisor/config.toml": `[settings.proxy]\nenable = true\nhttps = false\nport = ${taken}\n`,
        })
        expect(other.cli(["supervisor", "start"], other.root).status).toBe(0)
        const status = other.cli(["supervisor", "status"], other.root)
        expect(status.status, status.stderr).toBe(0)
        expect(status.stdout).toContain(
          `proxy    not started: port ${taken} on 127.0.0.1 is in use; choose another with settings.proxy.port`,
        )
        const json = JSON.parse(other.cli(["supervisor", "status", "--json"], other.root).stdout) as {
          proxy_problem?: string
          proxy_url?: string
        }
        expect(json.proxy_problem).toContain("is in use")
        expect(json.proxy_url).toBeUndefined()
        expect(readFileSync(join(other.stateDir, "logs", "supervisor.log"), "utf8")).toContain(
          "proxy: not started: port",
        )
      } finally {
        busy.close()
        other.destroy()
      }
    },
    T,
  )

  it("a listening proxy's URL is in supervisor status --json", () => {
    const json = JSON.parse(sb.cli(["supervisor", "status", "--json"], sb.root).stdout) as {
      proxy_url?: string
    }
    expect(json.proxy_url).toBe(`http://127.0.0.1:${port}`)
  })
})
