/**
 * The reverse proxy over HTTPS through a real supervisor started by the built CLI: the local CA
 * is created under `<state dir>/proxy/`, curl verifies each slug's certificate with `--cacert`
 * (no `-k`), one certificate per SNI name, HTTP/2 negotiated, HTTP/1.1 through the relay with a
 * start on request, and a WebSocket over TLS.
 */
import { execFile, spawnSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import * as tls from "node:tls"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, proxyUserConfig, waitFor } from "./harness.js"
import { clientFrame, SERVER_JS, serverFrames } from "./proxyFixture.js"

const T = 40_000
let sb: DaemonSandbox
let port = 0
let ca = ""
let shop = ""

const curl = (host: string, path = "/") =>
  spawnSync(
    "curl",
    [
      "-sS",
      "--http2",
      "--cacert",
      ca,
      "--resolve",
      `${host}:${port}:127.0.0.1`,
      "-w",
      "\n%{http_version}",
      `https://${host}:${port}${path}`,
    ],
    { encoding: "utf8", timeout: 20_000 },
  )

beforeAll(async () => {
  sb = makeDaemonSandbox()
  port = await freePort()
  shop = sb.project(
    "shop",
    ["[daemons.web]", 'run = "exec node server.cjs"', 'ready_output = "listening"', ""].join("\n"),
  )
  sb.write({
    "shop/server.cjs": SERVER_JS,
    "home/.config/supervisor/config.toml": proxyUserConfig(
      port,
      { shop: { dir: shop, daemon: "web" }, admin: { dir: shop, daemon: "web" } },
      { https: true },
    ),
  })
  ca = join(sb.stateDir, "proxy", "ca.pem")
  const started = sb.cli(["supervisor", "start"], sb.root)
  expect(started.status, started.stderr).toBe(0)
  await waitFor("the proxy's CA", () => existsSync(ca))
}, T)
afterAll(() => sb.destroy())

describe("proxy over HTTPS (e2e)", () => {
  it(
    "curl verifies two slugs with --cacert over HTTP/2; the CA key is private",
    async () => {
      expect(statSync(join(sb.stateDir, "proxy", "ca-key.pem")).mode & 0o777).toBe(0o600)
      for (const host of ["shop.localhost", "admin.localhost"]) {
        const r = curl(host, "/hello")
        expect(r.status, r.stderr).toBe(0)
        const [body, version] = r.stdout.split("\n")
        expect(version).toBe("2")
        const seen = JSON.parse(body!) as { url: string; headers: Record<string, string> }
        expect(seen.url).toBe("/hello")
        expect(seen.headers["x-forwarded-proto"]).toBe("https")
        expect(seen.headers["x-forwarded-host"]).toBe(`${host}:${port}`)
      }
    },
    T,
  )

  it(
    "HTTP/1.1 over TLS goes through the relay: concurrent requests for a stopped daemon start it once",
    async () => {
      const stopped = sb.cli(["stop", "web"], shop)
      expect(stopped.status, stopped.stderr).toBe(0)
      const starts = () =>
        readFileSync(join(shop, "starts.log"), "utf8")
          .split("\n")
          .filter((l) => l !== "")
      const before = starts().length
      const http11 = () =>
        new Promise<string>((resolve, reject) =>
          execFile(
            "curl",
            [
              "-sS",
              "--http1.1",
              "--cacert",
              ca,
              "--resolve",
              `shop.localhost:${port}:127.0.0.1`,
              "-w",
              "\n%{http_version}",
              `https://shop.localhost:${port}/one`,
            ],
            { timeout: 20_000 },
            (e, stdout, stderr) =>
              e === null ? resolve(stdout) : reject(new Error(`${e.message} ${stderr}`)),
          ),
        )
      const replies = await Promise.all([http11(), http11(), http11()])
      expect(starts()).toHaveLength(before + 1)
      for (const reply of replies) {
        const [body, version] = reply.split("\n")
        expect(version).toBe("1.1")
        const seen = JSON.parse(body!) as { url: string; headers: Record<string, string> }
        expect(seen.url).toBe("/one")
        expect(seen.headers).toMatchObject({
          host: `shop.localhost:${port}`,
          "x-forwarded-proto": "https",
          "x-forwarded-for": "127.0.0.1",
          "x-supervisor-hops": "1",
        })
      }
    },
    T,
  )

  it(
    "each SNI name gets its own certificate, issued by the local CA",
    async () => {
      for (const servername of ["shop.localhost", "admin.localhost"]) {
        const cert = await new Promise<tls.PeerCertificate>((resolve, reject) => {
          const socket = tls.connect(
            { host: "127.0.0.1", port, servername, ca: [readFileSync(ca, "utf8")] },
            () => {
              resolve(socket.getPeerCertificate())
              socket.end()
            },
          )
          socket.on("error", reject)
        })
        expect(cert.subjectaltname).toBe(`DNS:${servername}`)
      }
    },
    T,
  )

  it(
    "a WebSocket passes both ways over TLS (HTTP/1.1 upgrade)",
    async () => {
      const received = await new Promise<Array<string>>((resolve, reject) => {
        const socket = tls.connect({
          host: "127.0.0.1",
          port,
          servername: "shop.localhost",
          ca: [readFileSync(ca, "utf8")],
          ALPNProtocols: ["http/1.1"],
        })
        let data = Buffer.alloc(0)
        let upgraded = false
        socket.on("secureConnect", () =>
          socket.write(
            [
              "GET /ws HTTP/1.1",
              `Host: shop.localhost:${port}`,
              "Upgrade: websocket",
              "Connection: Upgrade",
              "Sec-WebSocket-Version: 13",
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
              "",
              "",
            ].join("\r\n"),
          ),
        )
        socket.on("data", (d: Buffer) => {
          data = Buffer.concat([data, d])
          if (!upgraded) {
            const end = data.indexOf("\r\n\r\n")
            if (end < 0) return
            expect(data.subarray(0, end).toString()).toMatch(/^HTTP\/1\.1 101/)
            data = data.subarray(end + 4)
            upgraded = true
            socket.write(clientFrame("ping"))
          }
          const frames = serverFrames(data)
          if (frames.length >= 2) {
            socket.destroy()
            resolve(frames)
          }
        })
        socket.on("error", reject)
      })
      expect(received).toEqual(["hello from server", "echo:ping"])
    },
    T,
  )
})
