// A listener's WebSocket upgrades reach the upgrade handler, never the routes: a server made with a
// request handler only (the TCP listeners') included.
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { withUpgrades } from "../../src/host/upgrades.js"

describe("withUpgrades", () => {
  it("hands an upgrade request to the handler on a server that has no upgrade listener of its own", async () => {
    const routed: Array<string> = []
    const upgraded: Array<string> = []
    const server = withUpgrades(
      createServer((req, res) => {
        routed.push(req.url ?? "")
        res.end("route")
      }),
      (req, socket) => {
        upgraded.push(req.url ?? "")
        socket.end("HTTP/1.1 418 Teapot\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
      },
    )
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
    try {
      const port = (server.address() as AddressInfo).port
      const status = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: "127.0.0.1", port, path: "/ws", headers }, (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          req.on("error", reject)
          req.end()
        })
      expect(await status({ connection: "Upgrade", upgrade: "websocket" })).toBe(418)
      expect(await status({})).toBe(200)
      expect(upgraded).toEqual(["/ws"])
      expect(routed).toEqual(["/ws"])
    } finally {
      server.close()
    }
  })
})
