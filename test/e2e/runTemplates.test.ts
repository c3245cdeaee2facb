/**
 * Templates in `run` and `env` through the built CLI: `{{ daemons.<name>.port }}` reaches the
 * shell as the named daemon's resolved port (after a bump), other `{{ ... }}` text reaches it as
 * written, and `config validate` names the key of a template naming no configured daemon.
 */
import * as net from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type CliResult,
  type DaemonSandbox,
  daemonEntry,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 30_000
const NODE = process.execPath
let sb: DaemonSandbox
let dir: string
let held: net.Server
let heldPort: number

const show = (r: CliResult) => `status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`

beforeAll(async () => {
  heldPort = await freePort()
  // the test holds web's configured port: web is bumped, and the templates render the port it got
  held = await new Promise<net.Server>((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(heldPort, "127.0.0.1", () => resolve(s))
  })
  sb = makeDaemonSandbox()
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
  const listen = `exec "${NODE}" -e "require('net').createServer((s) => s.end()).listen(Number(process.env.PORT), '127.0.0.1')"`
  dir = sb.project(
    "tpl",
    `
[daemons.web]
run = ${JSON.stringify(listen)}
port = { expect = [${heldPort}], bump = 20 }
ready_port = "{{ daemons.web.port }}"

[daemons.client]
run = "echo web is on {{ daemons.web.port }}; echo url=$WEB_URL; echo '{{.Names}} {{ print }}'; exec sleep 300"
env = { WEB_URL = "http://127.0.0.1:{{ daemons.web.port }}/" }
depends = ["web"]
ready_output = "^url="
`,
  )
}, T)

afterAll(async () => {
  sb?.destroy()
  await new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()))
}, T)

describe("templates in run and env", () => {
  it(
    "a daemon whose run echoes {{ daemons.web.port }} logs web's resolved port; env values render too",
    async () => {
      const r = sb.cli(["start", "client"], dir)
      expect(r.status, show(r)).toBe(0)
      const port = (await daemonEntry(sb.stateDir, "tpl/web"))?.resolved_port[0]
      expect(port).toBeGreaterThan(heldPort)
      // ready at the second line: the third may still be on its way to the log
      const lines = await waitFor("the client's three lines", async () => {
        const m = (await storedLogs(sb.stateDir, "tpl/client")).map((e) => e.message)
        return m.length >= 3 ? m : undefined
      })
      expect(lines).toEqual([`web is on ${port}`, `url=http://127.0.0.1:${port}/`, "{{.Names}} {{ print }}"])
    },
    T,
  )

  it(
    "config validate (and start) name the file, line and key of a run template naming no configured daemon",
    () => {
      const bad = sb.project(
        "badtpl",
        [
          "[daemons.web]",
          'run = "exec sleep 300"',
          "port = 3000",
          "",
          "[daemons.client]",
          'run = "curl http://127.0.0.1:{{ daemons.nope.port }}/"',
          "",
        ].join("\n"),
      )
      for (const args of [
        ["config", "validate"],
        ["start", "client"],
      ]) {
        const r = sb.cli(args, bad)
        expect(r.status, show(r)).toBe(1)
        expect(r.stderr).toContain(
          `${join(bad, "supervisor.toml")}:6: daemons.client.run: template {{ daemons.nope.port }} names "nope", which is not a configured daemon`,
        )
        expect(r.stderr).toContain("known daemons: badtpl/web, badtpl/client")
        expect(r.stderr).not.toMatch(STACK_LINE)
      }
    },
    T,
  )
})
