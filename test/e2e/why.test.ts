/**
 * `supervisor why ID` through the built CLI (docs/why.md): each cause of a daemon not running or
 * not ready, in words: a dependency it waits for (and why that one waits), the check it waits for
 * with its last output, a retry to come, a limit kill, a disabled flag, a port another process
 * holds (named), never started; and a daemon that runs and is ready, or completed.
 */
import { createServer, type Server } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
let port: number
let squatter: Server
const cli = (...args: Array<string>) => sb.cliAsync(args, proj)

interface Reason {
  readonly kind: string
  readonly id: string
  readonly depth: number
  readonly text: string
  readonly output: ReadonlyArray<string>
}
interface Explanation {
  readonly id: string
  readonly status: string
  readonly ok: boolean
  readonly reasons: ReadonlyArray<Reason>
}
const why = async (id: string): Promise<Explanation> => {
  const r = await cli("why", id, "--json")
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Explanation
}
const HOG = `node -e 'setTimeout(() => { const b = Buffer.alloc(150e6, 1); setInterval(() => b[0]++, 1000) }, 300)' & wait`

beforeAll(async () => {
  sb = makeDaemonSandbox()
  sb.env.SUPERVISOR_GENERAL_INTERVAL = "500ms"
  port = await freePort()
  squatter = createServer().listen(port, "127.0.0.1")
  proj = sb.project(
    "app",
    `
[daemons.db]
run = "echo booting; echo 'fatal: no data directory'; exit 3"
ready_delay = 0.2

[daemons.api]
run = "exec sleep 300"
depends = ["db"]

[daemons.slow]
run = "echo warming up; exec sleep 300"
ready_output = "accepting connections"

[daemons.flaky]
run = "echo oops; exit 1"
retry = 5
ready_delay = 5

[daemons.hog]
run = "${HOG}"
ready_delay = 0.1
memory_limit = "80MB"

[daemons.web]
run = "exec python3 -m http.server ${port}"
port = ${port}

[daemons.ok]
run = "exec sleep 300"
ready_delay = 0.1

[daemons.job]
run = "true"

[daemons.idle]
run = "exec sleep 300"
`,
  )
  await cli("start", "db")
  await cli("start", "web")
  expect((await cli("start", "ok", "job", "hog")).status).toBe(0)
  expect((await cli("disable", "ok")).status).toBe(0)
}, T)
afterAll(() => {
  squatter.close()
  sb.destroy()
}, T)

describe("supervisor why", () => {
  it(
    "a dependency it waits for, and below it why that one is not there: its exit and last lines",
    async () => {
      const api = await why("api")
      expect(api).toMatchObject({ id: "app/api", ok: false })
      const dep = api.reasons.find((r) => r.kind === "dependency")
      expect(dep?.text).toBe("app/api waits for app/db to be ready")
      const below = api.reasons.find((r) => r.id === "app/db" && r.kind === "exited" && r.depth === 1)
      expect(below?.text).toBe("app/db exited with code 3")
      expect(below?.output).toEqual(["booting", "fatal: no data directory"])
      const text = await cli("why", "api")
      expect(text.stdout).toContain("app/api waits for app/db to be ready\n  • app/db exited with code 3")
      expect(text.stdout).toContain("│ fatal: no data directory")
    },
    T,
  )

  it(
    "the readiness check it waits for, with its output so far",
    async () => {
      const start = cli("start", "slow") // waits for a line that never comes
      const slow = await waitFor("slow waiting for its check", async () => {
        const e = await why("slow")
        return e.reasons.some((r) => r.kind === "check") ? e : undefined
      })
      const check = slow.reasons.find((r) => r.kind === "check")!
      expect(check.text).toMatch(
        /^app\/slow runs \(pid \d+, started .* ago\) and waits for output matching \/accepting connections\/$/,
      )
      expect(check.output).toEqual(["warming up"])
      await cli("stop", "slow")
      await start
    },
    T,
  )

  it(
    "a retry to come, a limit kill, a disabled flag, a port held by another process",
    async () => {
      const start = cli("start", "flaky")
      const flaky = await waitFor("flaky's retry", async () => {
        const e = await why("flaky")
        return e.reasons.some((r) => r.kind === "retry") ? e : undefined
      })
      expect(flaky.reasons.find((r) => r.kind === "retry")?.text).toMatch(
        /^app\/flaky will be retried in [\d.]+ s \(retry \d of 5\)$/,
      )
      await cli("stop", "flaky")
      await start
      const hog = await waitFor("the limit kill", async () => {
        const e = await why("hog")
        return e.reasons.some((r) => r.kind === "limit") ? e : undefined
      })
      expect(hog.reasons.find((r) => r.kind === "limit")?.text).toMatch(/over memory_limit 80 MB/)
      const ok = await why("ok")
      expect(ok.reasons.map((r) => r.kind)).toEqual(["disabled", "ready"])
      expect(ok.reasons[0]?.text).toContain("supervisor enable app/ok")
      const web = await why("web")
      // the holder is this test's process, named as /proc names it
      expect(web.reasons.find((r) => r.kind === "port")?.text).toMatch(
        new RegExp(`^port ${port}, which app/web binds, is held by pid ${process.pid} \\(.+\\)$`),
      )
    },
    T,
  )

  it(
    "never started, completed, running and ready; an unknown ID is an error",
    async () => {
      expect((await why("idle")).reasons).toMatchObject([
        { kind: "never-started", text: expect.stringContaining("supervisor start app/idle") },
      ])
      expect(await why("job")).toMatchObject({
        ok: true,
        status: "stopped",
        reasons: [{ kind: "completed" }],
      })
      expect((await cli("enable", "ok")).status).toBe(0)
      expect(await why("ok")).toMatchObject({ ok: true, status: "running", reasons: [{ kind: "ready" }] })
      const unknown = await cli("why", "nope")
      expect(unknown.status).not.toBe(0)
      expect(unknown.stderr).toContain("nope")
    },
    T,
  )
})
