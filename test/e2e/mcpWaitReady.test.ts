/**
 * The supervisor's event stream through the built CLI's MCP server: `wait_ready` answers once a
 * restart (here from the CLI, as a watched file would make one) is ready, or says why not with the
 * failing output; a subscribed daemon log resource is notified when its daemon's state changes.
 */
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonPids, makeDaemonSandbox, waitFor } from "./harness.js"
import { connectMcp } from "./mcpClient.js"

const T = 60_000

// `web` crashes when the file `broken` exists and is ready once it printed `listening`; `slow`
// hangs when `stuck` exists, and its readiness gives up after 500 ms.
const APP = `
[daemons.web]
run = "if [ -f broken ]; then echo 'boom: bad config'; exit 3; fi; echo listening; exec sleep 300"
ready_output = { pattern = "listening", timeout = "30s" }

[daemons.slow]
run = "if [ -f stuck ]; then echo 'compiling forever'; fi; [ -f stuck ] || echo up; exec sleep 300"
ready_output = { pattern = "up", timeout = "500ms" }
`

interface WaitAnswer {
  readonly id: string
  readonly outcome: string
  readonly pid: number | null
  readonly status: string
  readonly message: string | null
  readonly output: ReadonlyArray<string>
}

describe("supervisor mcp: wait_ready", () => {
  let sb: DaemonSandbox
  let client: Client
  let app: string
  beforeAll(async () => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    const started = sb.cli(["start", "web", "slow"], app)
    expect(started.status, started.stderr).toBe(0)
    client = await connectMcp(sb, app)
  }, T)
  afterAll(async () => {
    await client?.close()
    sb?.destroy()
  })

  const waitReady = async (args: Record<string, unknown>) => {
    const r = (await client.callTool({ name: "wait_ready", arguments: args })) as {
      isError?: boolean
      structuredContent?: Record<string, unknown>
      content: Array<{ text?: string }>
    }
    return {
      isError: r.isError === true,
      text: r.content[0]?.text,
      answer: r.structuredContent as unknown as WaitAnswer,
    }
  }

  it(
    "answers ready with the new run's pid once a restart since the given time is ready",
    async () => {
      const [before] = daemonPids(sb.stateDir, "app/web")
      const since = new Date().toISOString()
      const restarted = sb.cli(["restart", "web"], app)
      expect(restarted.status, restarted.stderr).toBe(0)
      const r = await waitReady({ id: "web", since })
      expect(r.isError, r.text).toBe(false)
      expect(r.answer).toMatchObject({
        id: "app/web",
        outcome: "ready",
        status: "running",
        message: null,
        output: [],
      })
      expect(r.answer.pid).not.toBe(before)
      expect(daemonPids(sb.stateDir, "app/web")).toContain(r.answer.pid)
    },
    T,
  )

  it(
    "says why a restart did not become ready: how it exited and its last lines",
    async () => {
      writeFileSync(join(app, "broken"), "")
      const since = new Date().toISOString()
      const restarted = sb.cli(["restart", "web"], app)
      expect(restarted.status).not.toBe(0)
      const r = await waitReady({ id: "web", since })
      expect(r.isError).toBe(true)
      expect(r.answer).toMatchObject({ id: "app/web", outcome: "not_ready", pid: null })
      expect(r.answer.message).toMatch(/code 3/)
      expect(r.answer.output).toContain("boom: bad config")
    },
    T,
  )

  it(
    "gives a failed readiness check's output",
    async () => {
      writeFileSync(join(app, "stuck"), "")
      const since = new Date().toISOString()
      const restarted = sb.cli(["restart", "slow"], app)
      expect(restarted.status).not.toBe(0)
      const r = await waitReady({ id: "slow", since })
      expect(r.isError).toBe(true)
      expect(r.answer).toMatchObject({ id: "app/slow", outcome: "not_ready" })
      expect(r.answer.message).toMatch(/^not ready: /)
      expect(r.answer.output).toContain("compiling forever")
    },
    T,
  )

  it(
    "gives up after its timeout when no run begins, with the daemon's state",
    async () => {
      const r = await waitReady({ id: "web", timeout: 1 })
      expect(r.isError).toBe(true)
      expect(r.answer).toMatchObject({ id: "app/web", outcome: "timed_out", pid: null })
      expect(r.answer.message).toMatch(/not ready within 1s/)
    },
    T,
  )

  it(
    "notifies a subscribed daemon log resource when the daemon's state changes",
    async () => {
      const updated: Array<string> = []
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri)
      })
      expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true })
      await client.subscribeResource({ uri: "supervisor://logs/app/web" })
      rmSync(join(app, "broken"), { force: true })
      const restarted = sb.cli(["restart", "web"], app)
      expect(restarted.status, restarted.stderr).toBe(0)
      await waitFor("the log resource's update", () => updated.includes("supervisor://logs/app/web"))
      expect(updated.filter((u) => u !== "supervisor://logs/app/web")).toEqual([])
    },
    T,
  )
})
