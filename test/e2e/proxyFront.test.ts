/**
 * The proxy's native front through a real supervisor (plain HTTP): it is the listener, the
 * worker's relay gets what it hands over with the client's address, it ends with the
 * supervisor (asked or killed), and SUPERVISOR_PROXY_FRONT=node keeps the worker's own listener.
 */

import { readFileSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  cmdlineOf,
  type DaemonSandbox,
  freePort,
  httpAnswer,
  makeDaemonSandbox,
  processesOf,
  proxyUserConfig,
  supervisorPids,
  waitFor,
} from "./harness.js"
import { SERVER_JS } from "./proxyFixture.js"

const T = 40_000
const sandboxes: Array<DaemonSandbox> = []
afterEach(() => {
  for (const sb of sandboxes.splice(0)) sb.destroy()
})

/** A supervisor with the proxy on a free port and one slug, `shop`, served by a real server daemon. */
const supervisorWithProxy = async (env: Record<string, string> = {}) => {
  const sb = makeDaemonSandbox()
  sandboxes.push(sb)
  const port = await freePort()
  const shop = sb.project("shop", '[daemons.web]\nrun = "exec node server.cjs"\nready_output = "listening"\n')
  sb.write({
    "shop/server.cjs": SERVER_JS,
    "home/.config/supervisor/config.toml": proxyUserConfig(port, { shop: { dir: shop, daemon: "web" } }),
  })
  const started = sb.cli(["supervisor", "start"], sb.root, { ...sb.env, ...env })
  expect(started.status, started.stderr).toBe(0)
  return { sb, port }
}

const fronts = (stateDir: string) =>
  processesOf(stateDir).filter((pid) => cmdlineOf(pid)[0]?.endsWith("/proxy-front"))

const get = (port: number, request: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    socket.on("data", (d) => {
      text += d.toString("latin1")
    })
    socket.on("end", () => resolve(text))
    socket.on("error", reject)
    socket.write(request)
  })

const echoed = (response: string) =>
  JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)) as { headers: Record<string, string> }

describe("the proxy's native front (e2e)", () => {
  it(
    "listens for the supervisor; relays by Host itself, and hands an HTTP/1.0 request to the worker with the client's address",
    async () => {
      const { sb, port } = await supervisorWithProxy()
      await waitFor("the front running", () => fronts(sb.stateDir).length === 1)
      const direct = await get(port, "GET /a HTTP/1.1\r\nHost: shop.localhost\r\nConnection: close\r\n\r\n")
      expect(direct).toMatch(/^HTTP\/1\.1 200 /)
      expect(echoed(direct).headers).toMatchObject({
        "x-forwarded-for": "127.0.0.1",
        "x-supervisor-hops": "1",
      })
      const old = await get(port, "GET /b HTTP/1.0\r\nHost: shop.localhost\r\n\r\n")
      expect(old).toMatch(/^HTTP\/1\.[01] 200 /)
      expect(echoed(old).headers).toMatchObject({
        "x-forwarded-for": "127.0.0.1",
        "x-forwarded-host": "shop.localhost",
      })
      // an unknown slug: the worker's page
      const unknown = await get(port, "GET / HTTP/1.1\r\nHost: nope.localhost\r\nAccept: text/plain\r\n\r\n")
      expect(unknown).toMatch(/^HTTP\/1\.1 404 /)
      expect(unknown).toContain("nope")
    },
    T,
  )

  it(
    "starts again on the same port when it dies unasked, and says so in the supervisor's log",
    async () => {
      const { sb, port } = await supervisorWithProxy()
      const [first] = await waitFor("the front running", () => {
        const f = fronts(sb.stateDir)
        return f.length === 1 ? f : undefined
      })
      process.kill(first!, "SIGKILL")
      const [second] = await waitFor("another front running", () => {
        const f = fronts(sb.stateDir).filter((pid) => pid !== first)
        return f.length === 1 ? f : undefined
      })
      expect(second).not.toBe(first)
      const served = await waitFor("a request served again", async () => {
        const r = await get(
          port,
          "GET / HTTP/1.1\r\nHost: shop.localhost\r\nConnection: close\r\n\r\n",
        ).catch(() => "")
        return r.startsWith("HTTP/1.1 200 ") ? r : undefined
      })
      expect(echoed(served).headers).toMatchObject({ "x-forwarded-for": "127.0.0.1" })
      expect(readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")).toMatch(
        new RegExp(`proxy: the proxy's front exited \\(SIGKILL\\); started again on port ${port}`),
      )
    },
    T,
  )

  it(
    "ends with the supervisor, asked to stop or killed",
    async () => {
      const { sb } = await supervisorWithProxy()
      const [front] = await waitFor("the front running", () => {
        const f = fronts(sb.stateDir)
        return f.length === 1 ? f : undefined
      })
      const stopped = sb.cli(["supervisor", "stop"], sb.root)
      expect(stopped.status, stopped.stderr).toBe(0)
      await waitFor("the front gone", () => !processesOf(sb.stateDir).includes(front!))
      const again = sb.cli(["supervisor", "start"], sb.root)
      expect(again.status, again.stderr).toBe(0)
      const [next] = await waitFor("the next front running", () => {
        const f = fronts(sb.stateDir)
        return f.length === 1 ? f : undefined
      })
      for (const pid of supervisorPids(sb.stateDir)) process.kill(pid, "SIGKILL")
      await waitFor("the front gone with its supervisor", () => !processesOf(sb.stateDir).includes(next!))
    },
    T,
  )

  it(
    "SUPERVISOR_PROXY_FRONT=node: the worker listens and relays itself",
    async () => {
      const { sb, port } = await supervisorWithProxy({ SUPERVISOR_PROXY_FRONT: "node" })
      const r = await httpAnswer({ host: "127.0.0.1", port, path: "/", headers: { host: "shop.localhost" } })
      expect(r.status).toBe(200)
      expect(fronts(sb.stateDir)).toEqual([])
    },
    T,
  )
})
