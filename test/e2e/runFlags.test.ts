/**
 * pitchfork's flags of `supervisor run` through the built CLI: `--retry N` retries an ad-hoc daemon
 * as the `retry` key does; `--expected-port P --bump` checks its port, shifts it while it is taken
 * and gives it as PORT; `-q` prints nothing on success; `--bump` alone is a usage error.
 */
import { createServer, type Server } from "node:net"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, storedLogs, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
let port: number
let squatter: Server
const cli = (...args: Array<string>) => sb.cliAsync(args, proj)

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.dir("adhoc")
  port = await freePort()
  squatter = createServer().listen(port, "127.0.0.1")
}, T)
afterAll(() => {
  squatter.close()
  sb.destroy()
}, T)

it(
  "--retry N: the daemon is run N more times, then the start fails with its last output",
  async () => {
    const r = await cli(
      "run",
      "flaky",
      "--retry",
      "2",
      "--delay",
      "0.5",
      "--",
      "sh",
      "-c",
      "echo attempt; exit 1",
    )
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("after 2 retries")
    const attempts = await waitFor("three attempts", async () => {
      const n = (await storedLogs(sb.stateDir, "adhoc/flaky")).filter((e) => e.message === "attempt").length
      return n === 3 ? n : undefined
    })
    expect(attempts).toBe(3)
    const bad = await cli("run", "x", "--retry", "-1", "--", "true")
    expect(bad.status).toBe(2)
  },
  T,
)

it(
  "--expected-port P --bump: a taken port is shifted, and the daemon gets the one it was given",
  async () => {
    const r = await cli(
      "run",
      "web",
      "--expected-port",
      String(port),
      "--bump",
      "--delay",
      "0.2",
      "--",
      "sh",
      "-c",
      "echo port=$PORT; exec sleep 300",
    )
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain(`port ${port} was in use`)
    const line = await waitFor("the port line", async () =>
      (await storedLogs(sb.stateDir, "adhoc/web")).find((e) => e.message.startsWith("port=")),
    )
    expect(Number(line.message.slice(5))).toBeGreaterThan(port)
    const without = await cli("run", "taken", "--expected-port", String(port), "--", "sleep", "300")
    expect(without.status).toBe(1)
    expect(without.stderr).toContain(`port ${port} is already in use`)
    const bumpAlone = await cli("run", "x", "--bump", "--", "true")
    expect(bumpAlone.status).toBe(2)
    expect(bumpAlone.stderr).toContain("--bump shifts the ports of --expected-port")
  },
  T,
)

it(
  "-q: nothing printed when it starts",
  async () => {
    const r = await cli("run", "quiet", "-q", "--delay", "0.1", "--", "sleep", "300")
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe("")
  },
  T,
)
