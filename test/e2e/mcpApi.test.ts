/**
 * `supervisor mcp` acts through the supervisor's HTTP API, like every other front-end: its
 * actions are commands of the command protocol, counted in /metrics with `mcp` as their source,
 * and, with no process-wide state to guard (no captured stdout, no exit status), one tool call
 * does not wait for another.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parsePrometheus, sampleValue } from "../metrics/prometheus.js"
import { socketText } from "./commandCounts.js"
import { type DaemonSandbox, daemonPids, isAlive, makeDaemonSandbox, waitFor } from "./harness.js"
import { connectMcp } from "./mcpClient.js"

const T = 60_000

// `gated` is ready once the test creates the file `go` in its directory: its start waits until then.
const APP = `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0

[daemons.gated]
run = "while [ ! -f go ]; do sleep 0.05; done; echo gate open; exec sleep 300"
ready_output = { pattern = "gate open", timeout = "60s" }
`

interface ToolReply {
  readonly isError?: boolean
  readonly structuredContent?: Record<string, unknown>
  readonly content: Array<{ type: string; text?: string }>
}

describe("supervisor mcp through the API", () => {
  let sb: DaemonSandbox
  let client: Client
  let app: string
  beforeAll(async () => {
    sb = makeDaemonSandbox()
    app = sb.project("app", APP)
    client = await connectMcp(sb, app)
  }, T)
  afterAll(async () => {
    await client?.close()
    sb?.destroy()
  })

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as ToolReply

  /** How many commands the supervisor handled, by command and by who sent them (/metrics). */
  const handled = async (command: string, source: string) =>
    sampleValue(parsePrometheus(await socketText(sb.stateDir, "/metrics")), "supervisor_commands_total", {
      command,
      source,
    }) ?? 0

  it(
    "stops a daemon with a Stop command the supervisor counts as sent by mcp",
    async () => {
      const started = sb.cli(["start", "web"], app)
      expect(started.status, started.stderr).toBe(0)
      const [pid] = daemonPids(sb.stateDir, "app/web")
      const before = { mcp: await handled("Stop", "mcp"), cli: await handled("Stop", "cli") }
      const stopped = await call("stop", { id: "web" })
      expect(stopped.isError, stopped.content[0]?.text).toBeFalsy()
      expect(stopped.structuredContent?.results).toEqual([
        { id: "app/web", was_running: true, killed: false },
      ])
      expect(await handled("Stop", "mcp")).toBe(before.mcp + 1)
      expect(await handled("Stop", "cli")).toBe(before.cli)
      await waitFor("the daemon gone", () => pid !== undefined && !isAlive(pid))
      // a start and a restart are commands too
      const startsBefore = await handled("Start", "mcp")
      expect((await call("start", { id: "web" })).isError).toBeFalsy()
      expect(await handled("Start", "mcp")).toBe(startsBefore + 1)
      const restartsBefore = await handled("Restart", "mcp")
      expect((await call("restart", { id: "web" })).isError).toBeFalsy()
      expect(await handled("Restart", "mcp")).toBe(restartsBefore + 1)
    },
    T,
  )

  it(
    "reads logs with a Logs command the supervisor counts as sent by mcp",
    async () => {
      const started = sb.cli(["start", "web"], app)
      expect(started.status, started.stderr).toBe(0)
      const before = { mcp: await handled("Logs", "mcp"), cli: await handled("Logs", "cli") }
      const read = await call("logs", { ids: ["web"], n: 5 })
      expect(read.isError, read.content[0]?.text).toBeFalsy()
      expect(await handled("Logs", "mcp")).toBe(before.mcp + 1)
      expect(await handled("Logs", "cli")).toBe(before.cli)
      // an unknown daemon is the command's typed failure, in the tool's words
      const unknown = await call("logs", { ids: ["nope"] })
      expect(unknown.isError).toBe(true)
      expect(unknown.content[0]?.text).toMatch(/nope/)
    },
    T,
  )

  it(
    "answers a list while a start waits for readiness: tool calls do not queue behind each other",
    async () => {
      let settled = false
      const starting = call("start", { ids: ["gated"] }).finally(() => {
        settled = true
      })
      // the start is under way once the daemon runs (it waits for its gate)
      await waitFor("gated spawned", () => daemonPids(sb.stateDir, "app/gated")[0])
      const listed = await call("list")
      expect(listed.isError, listed.content[0]?.text).toBeFalsy()
      const ids = (listed.structuredContent!.daemons as Array<{ id: { qualified: string } }>).map(
        (d) => d.id.qualified,
      )
      expect(ids).toContain("app/gated")
      expect(settled).toBe(false)
      expect(existsSync(join(app, "go"))).toBe(false)
      writeFileSync(join(app, "go"), "")
      const started = await starting
      expect(started.isError, started.content[0]?.text).toBeFalsy()
      expect((started.structuredContent!.outcomes as Array<{ id: string }>).map((o) => o.id)).toEqual([
        "app/gated",
      ])
    },
    T,
  )
})
