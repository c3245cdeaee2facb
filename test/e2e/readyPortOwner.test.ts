/**
 * `ready_port` through the built CLI: only a listener of the daemon's own process tree makes it
 * ready. The test holds a port with a plain `net` server (the "other program"); a daemon that
 * fails to bind it, or never binds, fails its start naming the real reason, while daemons that
 * really listen (directly, as a child of their shell, under a pty) still pass.
 */
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type CliResult,
  type DaemonSandbox,
  daemonEntry,
  daemonPids,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
} from "./harness.js"

const T = 30_000
const NODE = process.execPath
let sb: DaemonSandbox
let dir: string
let held: net.Server
const P: Record<string, number> = {}

/** Listens on 127.0.0.1:<port> in this process (the "other program" holding a port). */
const hold = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(port, "127.0.0.1", () => resolve(s))
  })

/** A TCP listener on 127.0.0.1:<port>; when the port is taken it says so and exits 1. */
const LISTEN_JS = `
require("node:net")
  .createServer((s) => s.end())
  .on("error", (e) => {
    console.error("cannot listen on " + process.argv[2] + ": " + e.code)
    process.exit(1)
  })
  .listen(Number(process.argv[2]), "127.0.0.1")
`

const show = (r: CliResult) => `status ${r.status}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`
const cli = (...args: Array<string>) => sb.cli(args, dir)

beforeAll(async () => {
  for (const name of ["held", "own", "child", "pty"]) P[name] = await freePort()
  held = await hold(P.held!)
  sb = makeDaemonSandbox()
  sb.env.SUPERVISOR_SUPERVISOR_READY_CHECK_INTERVAL = "100ms"
  const listen = (port: number) => `"${NODE}" listen.js ${port}`
  dir = sb.project(
    "port",
    `
[daemons.noport]
run = ${JSON.stringify(`exec ${listen(P.held!)}`)}
ready_port = ${P.held}

[daemons.sleeper]
run = "exec sleep 300"
ready_port = ${P.held}

[daemons.own]
run = ${JSON.stringify(`exec ${listen(P.own!)}`)}
ready_port = ${P.own}

[daemons.child]
run = ${JSON.stringify(`${listen(P.child!)}; echo "listener ended"`)}
ready_port = ${P.child}

[daemons.ptyown]
run = ${JSON.stringify(`exec ${listen(P.pty!)}`)}
pty = true
ready_port = ${P.pty}
`,
  )
  sb.write({ "port/listen.js": LISTEN_JS })
}, T)

afterAll(async () => {
  sb?.destroy()
  await new Promise<void>((resolve) => (held ? held.close(() => resolve()) : resolve()))
}, T)

/** The start failed (exit 1), nothing of the daemon is left, and it is recorded errored. */
const expectFailed = async (r: CliResult, id: string) => {
  expect(r.status, show(r)).toBe(1)
  expect(r.stdout).not.toContain(`✓ port/${id} is running`)
  expect(r.stderr).toContain(`port/${id} failed to start`)
  expect(r.stderr).not.toMatch(STACK_LINE)
  expect(daemonPids(sb.stateDir, `port/${id}`)).toEqual([])
  expect((await daemonEntry(sb.stateDir, `port/${id}`))?.status.type).toBe("errored")
}

describe("ready_port counts only the daemon's own listener", () => {
  it(
    "a daemon that fails to bind a port another process holds fails its start with the real reason",
    async () => {
      const r = cli("start", "noport")
      await expectFailed(r, "noport")
      // Its own error (it exits at once), or, had it been slower than the grace, the holder.
      expect(r.stderr).toMatch(
        new RegExp(
          `cannot listen on ${P.held}: EADDRINUSE|port ${P.held} is held by another process \\(pid ${process.pid}, `,
        ),
      )
    },
    T,
  )

  it(
    "a daemon that never binds fails once the port is seen held by another process, which is named",
    async () => {
      const r = cli("start", "sleeper")
      await expectFailed(r, "sleeper")
      expect(r.stderr).toContain(`port ${P.held} is held by another process (pid ${process.pid}, `)
      expect(r.stderr).toContain(`) not started by port/sleeper; stop it or give port/sleeper another port`)
      const list = cli("list")
      expect(list.stdout).toMatch(/port\/sleeper\s+errored/)
    },
    T,
  )

  it(
    "a daemon that listens itself, through its shell's child, or under a pty is ready",
    () => {
      for (const id of ["own", "child", "ptyown"]) {
        const r = cli("start", id)
        expect(r.status, `${id}: ${show(r)}`).toBe(0)
        expect(r.stdout).toContain(`✓ port/${id} is running`)
      }
    },
    T,
  )
})
