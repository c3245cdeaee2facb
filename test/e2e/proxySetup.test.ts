/**
 * Turning the proxy on, as a user does it with the built CLI: each step says what is still
 * needed (the proxy off), the running supervisor opens, moves and closes the proxy as
 * `settings.proxy` changes, without a restart, and plain HTTP sent
 * to the HTTPS port gets an answer pointing to https:// instead of an empty reply, while HTTPS
 * on that port works as before.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, httpAnswer, makeDaemonSandbox, waitFor } from "./harness.js"
import { SERVER_JS } from "./proxyFixture.js"

const T = 60_000
let sb: DaemonSandbox
let shop = ""

beforeAll(() => {
  sb = makeDaemonSandbox()
  shop = sb.project(
    "shop",
    ["[daemons.web]", 'run = "exec node server.cjs"', 'ready_output = "listening"', ""].join("\n"),
  )
  sb.write({ "shop/server.cjs": SERVER_JS })
})
afterAll(() => sb.destroy(), T)

/** A plain HTTP/1.1 GET to the proxy's port, with `host`. */
const plainGet = (port: number, host: string, path: string) =>
  httpAnswer({ host: "127.0.0.1", port, path, agent: false, headers: { host } })

describe("turning the proxy on", () => {
  it(
    "says at each step what is still needed; the running supervisor follows settings.proxy live",
    async () => {
      const first = await freePort()
      // a slug while the proxy is off: it is kept, and the note says how to turn the proxy on
      const added = sb.cli(["proxy", "add", "shop", "--daemon", "web"], shop)
      expect(added.status, added.stderr).toBe(0)
      expect(added.stderr).toContain(
        "note: the proxy is off: turn it on with `supervisor settings set proxy.enable true --global`\n",
      )
      // a supervisor runs, then the proxy is turned on: it opens without a restart
      expect(sb.cli(["start", "web"], shop).status).toBe(0)
      const pid = JSON.parse(sb.cli(["supervisor", "status", "--json"], shop).stdout).pid as number
      expect(sb.cli(["settings", "set", "proxy.port", String(first), "--global"], shop).status).toBe(0)
      const on = sb.cli(["settings", "set", "proxy.enable", "true", "--global"], shop)
      expect(on.status, on.stderr).toBe(0)
      expect(on.stderr).toBe("")
      await waitFor("the CA", () => existsSync(join(sb.stateDir, "proxy", "ca.pem")))
      expect(sb.cli(["proxy", "status"], shop).stdout).not.toContain("note:")
      expect((await plainGet(first, `shop.localhost:${first}`, "/")).status).toBe(400)
      // another port, live: the old one is closed, the new one serves
      const port = await freePort()
      const moved = sb.cli(["settings", "set", "proxy.port", String(port), "--global"], shop)
      expect(moved.stderr).toBe("")
      const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], shop).stdout)
      expect(status.pid).toBe(pid)
      expect(status.proxy_url).toBe(`https://127.0.0.1:${port}`)
      await expect(plainGet(first, `shop.localhost:${first}`, "/")).rejects.toThrow(/ECONNREFUSED/)

      // plain HTTP to the HTTPS port: a 400 that names the https:// address
      const plain = await plainGet(port, `shop.localhost:${port}`, "/hello?x=1")
      expect(plain.status).toBe(400)
      expect(plain.body).toContain(`open https://shop.localhost:${port}/hello?x=1`)
      // HTTPS on the same port still reaches the daemon
      const curl = spawnSync(
        "curl",
        [
          "-sS",
          "--cacert",
          join(sb.stateDir, "proxy", "ca.pem"),
          "--resolve",
          `shop.localhost:${port}:127.0.0.1`,
          `https://shop.localhost:${port}/hello`,
        ],
        { encoding: "utf8", timeout: 30_000 },
      )
      expect(curl.status, curl.stderr).toBe(0)
      expect(JSON.parse(curl.stdout).url).toBe("/hello")
      // turned off, live: the port closes and the status says how to turn it on again
      const off = sb.cli(["settings", "set", "proxy.enable", "false", "--global"], shop)
      expect(off.stderr).toBe("")
      await expect(plainGet(port, `shop.localhost:${port}`, "/")).rejects.toThrow(/ECONNREFUSED/)
      expect(JSON.parse(sb.cli(["supervisor", "status", "--json"], shop).stdout).pid).toBe(pid)
      expect(sb.cli(["proxy", "status"], shop).stdout).toContain("note: the proxy is off")
    },
    T * 3,
  )

  it(
    "a request open when the port changes finishes on the old listener",
    async () => {
      const [before, after] = [await freePort(), await freePort()]
      expect(sb.cli(["settings", "set", "proxy.https", "false", "--global"], shop).status).toBe(0)
      expect(sb.cli(["settings", "set", "proxy.port", String(before), "--global"], shop).status).toBe(0)
      expect(sb.cli(["settings", "set", "proxy.enable", "true", "--global"], shop).stderr).toBe("")
      // a response that has begun and waits for /release
      const body = await new Promise<{ first: string; rest: Promise<string> }>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: before,
            path: "/stream",
            agent: false,
            headers: { host: "shop.localhost" },
          },
          (res) => {
            res.setEncoding("utf8")
            let text = ""
            const rest = new Promise<string>((done) => res.on("end", () => done(text)))
            res.once("data", (c: string) => {
              text += c
              res.on("data", (more: string) => {
                text += more
              })
              resolve({ first: c, rest })
            })
          },
        )
        req.on("error", reject)
        req.end()
      })
      expect(body.first).toBe("first\n")
      expect(sb.cli(["settings", "set", "proxy.port", String(after), "--global"], shop).stderr).toBe("")
      await expect(plainGet(before, "shop.localhost", "/")).rejects.toThrow(/ECONNREFUSED/)
      expect((await plainGet(after, "shop.localhost", "/release")).body).toBe("released")
      expect(await body.rest).toBe("first\nlast\n")
      // another TLD on the same port: the new listener takes the port the old one frees
      expect(sb.cli(["settings", "set", "proxy.tld", "test", "--global"], shop).stderr).toBe("")
      const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], shop).stdout)
      expect(status.proxy_url).toBe(`http://127.0.0.1:${after}`)
      expect(status.proxy_tld).toBe("test")
      expect((await plainGet(after, "shop.test", "/release")).body).toBe("released")
      expect((await plainGet(after, "shop.localhost", "/")).status).toBe(404)
    },
    T,
  )
})
