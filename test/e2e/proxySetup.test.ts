/**
 * Turning the proxy on, as a user does it with the built CLI: each step says what is still
 * needed (the proxy off, a supervisor that started before it was turned on), and plain HTTP sent
 * to the HTTPS port gets an answer pointing to https:// instead of an empty reply, while HTTPS
 * on that port works as before.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, httpAnswer, makeDaemonSandbox, waitFor } from "./harness.js"
import { SERVER_JS } from "./proxyFixture.js"

const T = 60_000
const RESTART = "(`supervisor supervisor start --force`)"
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
    "says at each step what is still needed, until the proxy serves",
    async () => {
      const port = await freePort()
      // a slug while the proxy is off: it is kept, and the note says how to turn the proxy on
      const added = sb.cli(["proxy", "add", "shop", "--daemon", "web"], shop)
      expect(added.status, added.stderr).toBe(0)
      expect(added.stderr).toContain(
        `note: the proxy is off: turn it on with \`supervisor settings set proxy.enable true --global\`, then restart the supervisor ${RESTART}`,
      )
      // a supervisor runs, then the proxy is turned on: it needs a restart, and says so
      expect(sb.cli(["start", "web"], shop).status).toBe(0)
      expect(sb.cli(["settings", "set", "proxy.port", String(port), "--global"], shop).status).toBe(0)
      const on = sb.cli(["settings", "set", "proxy.enable", "true", "--global"], shop)
      expect(on.status, on.stderr).toBe(0)
      const restart = `the proxy is on, but the running supervisor started before: restart it ${RESTART} to serve it`
      expect(on.stderr).toBe(`note: ${restart}\n`)
      const status = sb.cli(["proxy", "status"], shop)
      expect(status.stdout).toContain(`note: ${restart}`)
      // restarted: nothing more is needed
      expect(sb.cli(["supervisor", "start", "--force"], shop).status).toBe(0)
      await waitFor("the CA", () => existsSync(join(sb.stateDir, "proxy", "ca.pem")))
      expect(sb.cli(["proxy", "status"], shop).stdout).not.toContain("note:")
      // a proxy setting changed under a running proxy: read when the supervisor starts
      const https = sb.cli(["settings", "set", "proxy.https", "true", "--global"], shop)
      expect(https.stderr).toBe(
        `note: the running supervisor reads settings.proxy.https when it starts: restart it ${RESTART}\n`,
      )

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
    },
    T * 3,
  )
})
