// A start checks the ports of every daemon it starts before it spawns any: a taken port fails
// the daemon and its dependents at once, and the migration it needs does not run.
import { existsSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonPids, freePort, makeDaemonSandbox } from "./harness.js"

const T = 60_000
let sb: DaemonSandbox
let held: net.Server | undefined

/** Listens on 127.0.0.1:<port> in this process: the other program that holds the port. */
const hold = (port: number): Promise<net.Server> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once("error", reject)
    s.listen(port, "127.0.0.1", () => resolve(s))
  })

beforeEach(() => {
  sb = makeDaemonSandbox()
  sb.env.NO_COLOR = "1"
})
afterEach(async () => {
  if (held) await new Promise<void>((resolve) => held!.close(() => resolve()))
  held = undefined
  sb.destroy()
}, T)

describe("ports before dependencies", () => {
  it(
    "a start whose port is taken reports the conflict without running the migration",
    async () => {
      const port = await freePort()
      held = await hold(port)
      const dir = sb.project(
        "shop",
        `namespace = "shop"
[daemons.migrate]
run = "touch migrated"

[daemons.api]
run = "exec sleep 300"
port = ${port}
ready_delay = 0.3
depends = [{ id = "migrate", condition = "completed" }]

[daemons.worker]
run = "exec sleep 300"
ready_delay = 0.3
depends = ["api"]
`,
      )
      // the quick client, then the full CLI (a readiness flag is the CLI's to handle)
      for (const args of [
        ["start", "worker"],
        ["start", "worker", "--delay", "0.3"],
      ]) {
        const r = sb.cli(args, dir)
        expect(r.status, args.join(" ")).toBe(1)
        expect(r.stderr).toContain(`✗ shop/api failed to start: port ${port} is already in use`)
        expect(r.stderr).toContain(
          "✗ shop/worker failed to start: not started: its dependency shop/api failed",
        )
        expect(r.stdout + r.stderr).not.toContain("migrate")
        expect(existsSync(join(dir, "migrated")), args.join(" ")).toBe(false)
        expect(daemonPids(sb.stateDir, "shop/worker")).toEqual([])
      }
    },
    T,
  )
})
