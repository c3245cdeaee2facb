/**
 * Binding the web UI or the API listener beyond loopback (the built CLI): refused without
 * `allow_non_loopback`, and with it the spec's plain-HTTP warning reaches the user and the
 * supervisor log; the Host check still refuses DNS-rebinding names on such a listener.
 */
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, STACK_LINE, supervisorPids } from "../e2e/harness.js"

const T = 30_000
const WARNING = "A direct non-loopback request sends the token unencrypted"

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
})
afterEach(() => sb.destroy())

const status = (port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/api/stats", headers: { host }, agent: false },
      (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      },
    )
    req.on("error", reject)
    req.end()
  })

describe("non-loopback listeners (e2e)", () => {
  it(
    "are refused without allow_non_loopback, with a message naming the setting",
    () => {
      const dir = sb.dir("app")
      for (const [kind, env] of [
        ["web", { SUPERVISOR_WEB_BIND_ADDRESS: "0.0.0.0" }],
        [
          "api",
          {
            SUPERVISOR_API_BIND_ADDRESS: "0.0.0.0",
            SUPERVISOR_API_AUTO_START: "true",
            SUPERVISOR_API_BIND_PORT: "0",
          },
        ],
      ] as const) {
        const r = sb.cli(["supervisor", "start", "--web-port", "0"], dir, { ...sb.env, ...env })
        expect(r.status, kind).toBe(1)
        expect(r.stderr, kind).toContain(
          `settings.${kind}.bind_address = "0.0.0.0" is not a loopback address`,
        )
        expect(r.stderr, kind).toContain(`settings.${kind}.allow_non_loopback = true`)
        expect(r.stderr, kind).not.toMatch(STACK_LINE)
        expect(supervisorPids(sb.stateDir), kind).toEqual([])
      }
      // a command that starts the supervisor on its own says why it could not, at once
      // "exited at start", not a start that timed out (the quick exit itself: test/security/startOutcome.test.ts)
      const auto = sb.cli(["list"], dir, {
        ...sb.env,
        SUPERVISOR_WEB_AUTO_START: "true",
        SUPERVISOR_WEB_BIND_ADDRESS: "0.0.0.0",
      })
      expect(auto.status).toBe(1)
      expect(auto.stderr).toContain(
        'the supervisor exited at start: settings.web.bind_address = "0.0.0.0" is not a loopback address',
      )
      expect(auto.stderr).not.toMatch(STACK_LINE)
    },
    T,
  )

  it(
    "with allow_non_loopback: listen, print the spec's warning, and still refuse rebinding hosts",
    async () => {
      const dir = sb.dir("app")
      const env = {
        ...sb.env,
        SUPERVISOR_WEB_BIND_ADDRESS: "0.0.0.0",
        SUPERVISOR_WEB_ALLOW_NON_LOOPBACK: "true",
        SUPERVISOR_API_BIND_ADDRESS: "0.0.0.0",
        SUPERVISOR_API_ALLOW_NON_LOOPBACK: "true",
        SUPERVISOR_API_AUTO_START: "true",
        SUPERVISOR_API_BIND_PORT: "0",
      }
      const r = sb.cli(["supervisor", "start", "--web-port", "0"], dir, env)
      expect(r.status, r.stderr).toBe(0)
      // the user who started it is told, not only the log
      expect(r.stderr).toContain(WARNING)
      const log = readFileSync(join(sb.stateDir, "logs", "supervisor.log"), "utf8")
      expect(log.split(WARNING).length - 1).toBe(2) // once per listener
      const s = JSON.parse(sb.cli(["supervisor", "status", "--json"], dir, env).stdout) as {
        web_url: string
        api_url: string
      }
      for (const url of [s.web_url, s.api_url]) {
        const port = Number(new URL(url).port)
        for (const host of [
          "evil.com",
          `evil.com:${port}`,
          `127.0.0.1.evil.com:${port}`,
          `localhost.evil.com:${port}`,
        ])
          expect(await status(port, host), `${url} ${host}`).toBe(403)
        expect(await status(port, `127.0.0.1:${port}`), url).toBe(401) // allowed host, no token
      }
    },
    T,
  )
})
