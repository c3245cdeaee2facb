/**
 * `web.base_path` from the environment through the built CLI: the supervisor reads the setting's
 * Schema-derived variable SUPERVISOR_WEB_BASE_PATH (the one `settings list` shows), and
 * SUPERVISOR_WEB_PATH (what `--web-path` sets) wins over it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox

beforeAll(() => {
  sb = makeDaemonSandbox()
}, T)
afterAll(() => sb.destroy())

describe("web.base_path from the environment (e2e)", () => {
  it(
    "SUPERVISOR_WEB_BASE_PATH serves the web UI under the path; SUPERVISOR_WEB_PATH wins",
    async () => {
      const port = await freePort()
      const env = {
        ...sb.env,
        SUPERVISOR_WEB_AUTO_START: "true",
        SUPERVISOR_WEB_BIND_PORT: String(port),
        SUPERVISOR_WEB_BASE_PATH: "/bp",
      }
      expect(sb.cli(["settings", "get", "web.base_path"], sb.root, env).stdout.trim()).toBe("/bp")
      const up = sb.cli(["supervisor", "start"], sb.root, env)
      expect(up.status, up.stderr).toBe(0)
      const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], sb.root).stdout)
      expect(status.web_url).toBe(`http://127.0.0.1:${port}/bp`)
      const again = sb.cli(["supervisor", "start", "--force"], sb.root, {
        ...env,
        SUPERVISOR_WEB_PATH: "/wp",
      })
      expect(again.status, again.stderr).toBe(0)
      const after = JSON.parse(sb.cli(["supervisor", "status", "--json"], sb.root).stdout)
      expect(after.web_url).toBe(`http://127.0.0.1:${port}/wp`)
    },
    T,
  )
})
