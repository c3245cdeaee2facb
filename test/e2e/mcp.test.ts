/**
 * `supervisor mcp` through the built CLI: the SDK's own client over a real stdio pipe to
 * `dist/supervisor.cjs mcp`, in a sandbox with its own supervisor (started by the first tool call).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonPids,
  isAlive,
  makeDaemonSandbox,
  supervisorPids,
  waitFor,
} from "./harness.js"
import { connectMcp } from "./mcpClient.js"

const T = 60_000

const APP = `
[daemons.web]
run = "echo web up; echo line two; exec sleep 300"
ready_delay = 0.2

[daemons.never]
run = "exec sleep 300"
ready_output = { pattern = "ready", timeout = "300ms" }

[daemons.reader]
run = "exec python3 -u -c 'import sys\\nfor l in sys.stdin: print(\\"got\\", l.strip())'"
stdin = "pipe"
ready_delay = 0.1
`

describe("supervisor mcp", () => {
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

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean
      structuredContent?: Record<string, unknown>
      content: Array<{ type: string; text?: string }>
    }
    return { ...r, structuredContent: r.structuredContent ?? {} }
  }

  it(
    "lists its tools with JSON Schemas and hints",
    async () => {
      const { tools } = await client.listTools()
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
      expect(Object.keys(byName).sort()).toEqual(
        [
          "config",
          "describe_command",
          "list",
          "list_commands",
          "logs",
          "restart",
          "scale",
          "send_input",
          "start",
          "status",
          "stop",
          "wait_ready",
        ].sort(),
      )
      for (const name of ["stop", "restart", "start"])
        expect(byName[name]?.annotations?.destructiveHint).toBe(true)
      for (const name of [
        "list",
        "status",
        "logs",
        "wait_ready",
        "config",
        "describe_command",
        "list_commands",
      ])
        expect(byName[name]?.annotations?.readOnlyHint).toBe(true)
      expect(byName.start?.inputSchema.properties).toHaveProperty("force")
      expect(byName.logs?.inputSchema.properties).toHaveProperty("grep")
      expect(byName.list?.outputSchema?.properties).toHaveProperty("daemons")
    },
    T,
  )

  it(
    "starts, lists, reads logs of, restarts and stops daemons, starting the supervisor",
    async () => {
      expect(supervisorPids(sb.stateDir)).toEqual([])
      const started = await call("start", { ids: ["web"] })
      expect(started.isError).toBeFalsy()
      const outcomes = started.structuredContent.outcomes as Array<{ id: string; status: string }>
      expect(outcomes.map((o) => o.id)).toEqual(["app/web"])
      expect(supervisorPids(sb.stateDir).length).toBe(1)
      const [pid] = daemonPids(sb.stateDir, "app/web")
      expect(pid !== undefined && isAlive(pid)).toBe(true)

      const listed = await call("list")
      const daemons = listed.structuredContent.daemons as Array<{
        id: { qualified: string }
        status: unknown
      }>
      expect(daemons.find((d) => d.id.qualified === "app/web")?.status).toEqual({ type: "running" })

      const status = await call("status", { id: "web" })
      expect(status.structuredContent.status_text).toBe("running")

      const logs = await waitFor("the grepped log line", async () => {
        const r = await call("logs", { ids: ["web"], grep: ["TWO"] })
        const lines = r.structuredContent.lines as Array<{ message: string }>
        return lines.length > 0 ? lines : undefined
      })
      expect(logs.map((l) => l.message)).toEqual(["line two"])

      const { resources } = await client.listResources()
      expect(resources.map((r) => r.uri)).toContain("supervisor://logs/app/web")
      const read = await client.readResource({ uri: "supervisor://logs/app/web" })
      expect((read.contents[0] as { text: string }).text).toMatch(/web up\n.*line two\n/)

      const restarted = await call("restart", { ids: ["web"] })
      expect(restarted.isError).toBeFalsy()
      await waitFor("a new pid after the restart", () => {
        const [next] = daemonPids(sb.stateDir, "app/web")
        return next !== undefined && next !== pid ? next : undefined
      })

      const stopped = await call("stop", { ids: ["web"] })
      expect(stopped.structuredContent.results).toEqual([{ id: "app/web", was_running: true, killed: false }])
      await waitFor("the daemon gone", () => pid !== undefined && !isAlive(pid))
    },
    T,
  )

  it(
    "types into a daemon that reads its stdin (send_input); one that reads none is a tool error",
    async () => {
      expect((await call("start", { ids: ["reader"] })).isError).toBeFalsy()
      const sent = await call("send_input", { id: "reader", text: "hello", enter: true })
      expect(sent.isError, sent.content[0]?.text).toBeFalsy()
      expect(sent.structuredContent).toEqual({ id: "app/reader", bytes: 6 })
      await waitFor("the daemon's answer", async () => {
        const r = await call("logs", { ids: ["reader"], grep: ["got hello"] })
        return (r.structuredContent.lines as Array<unknown>).length > 0 ? true : undefined
      })
      expect((await call("start", { ids: ["web"] })).isError).toBeFalsy()
      const refused = await call("send_input", { id: "web", text: "x" })
      expect(refused.isError).toBe(true)
      expect(refused.content[0]?.text).toContain("set pty = true")
    },
    T,
  )

  it(
    "takes pitchfork's `id`; lists this project's daemons and their logs as resources, with their state in words",
    async () => {
      const other = sb.project("other", `[daemons.x]\nrun = "exec sleep 300"\nready_delay = 0\n`)
      const elsewhere = sb.cli(["start", "x"], other)
      expect(elsewhere.status, elsewhere.stderr).toBe(0)

      // as an agent configured for pitchfork calls it: `id`, one ID or a list
      const started = await call("start", { id: "web" })
      expect(started.isError, started.content[0]?.text).toBeFalsy()
      expect((started.structuredContent.outcomes as Array<{ id: string }>).map((o) => o.id)).toEqual([
        "app/web",
      ])
      const [pid] = daemonPids(sb.stateDir, "app/web")

      const { resources } = await client.listResources()
      const uris = resources.map((r) => r.uri)
      expect(uris).toContain("supervisor://logs/app/web")
      expect(uris.filter((u) => !u.startsWith("supervisor://logs/app/"))).toEqual([])
      expect(resources.find((r) => r.uri === "supervisor://logs/app/web")?.description).toBe(
        `the last 200 lines of the log of app/web (running, pid ${pid})`,
      )

      const ids = async (args: Record<string, unknown>) =>
        ((await call("list", args)).structuredContent.daemons as Array<{ id: { qualified: string } }>).map(
          (d) => d.id.qualified,
        )
      const here = await ids({})
      expect(here).toContain("app/web")
      expect(here.filter((id) => !id.startsWith("app/"))).toEqual([])
      expect(await ids({ all: true })).toEqual(expect.arrayContaining(["app/web", "other/x"]))

      const logs = await call("logs", { id: ["web"], n: 1 })
      expect(logs.isError, logs.content[0]?.text).toBeFalsy()
      expect(logs.structuredContent.lines).toHaveLength(1)

      const stopped = await call("stop", { id: ["web", "other/x"] })
      expect(stopped.isError, stopped.content[0]?.text).toBeFalsy()
      expect((stopped.structuredContent.results as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([
        "app/web",
        "other/x",
      ])
    },
    T,
  )

  it(
    "reports a command's failure and bad arguments as tool errors",
    async () => {
      const unknown = await call("status", { id: "nosuch" })
      expect(unknown.isError).toBe(true)
      expect(unknown.content[0]?.text).toMatch(/nosuch/)
      const bad = await call("logs", { n: -1, colour: true })
      expect(bad.isError).toBe(true)
      expect(bad.content[0]?.text).toMatch(/invalid arguments for logs/)
      expect(bad.content[0]?.text).toMatch(/colour/)
      const dash = await call("stop", { ids: ["--all"] })
      expect(dash.isError).toBe(true)
      expect(dash.content[0]?.text).toMatch(/not starting with -/)
    },
    T,
  )

  it(
    "returns a start whose readiness timed out with its outcomes, as an error",
    async () => {
      const r = await call("start", { ids: ["never"] })
      expect(r.isError).toBe(true)
      const outcomes = r.structuredContent.outcomes as Array<{ id: string }>
      expect(outcomes.map((o) => o.id)).toEqual(["app/never"])
      expect(r.content[0]?.text).toContain('"outcomes"')
    },
    T,
  )

  it(
    "describes the CLI's commands from its usage spec",
    async () => {
      const described = await call("describe_command", { command: ["logs"] })
      const d = described.structuredContent as {
        path: Array<string>
        flags: Array<{ names: Array<string> }>
        outputs: Array<{ name: string; schema: unknown }>
        exit_codes: Array<{ code: number }>
      }
      expect(d.path).toEqual(["logs"])
      expect(d.flags.some((f) => f.names.includes("--grep"))).toBe(true)
      expect(d.outputs.find((o) => o.name === "json")?.schema).toBeTypeOf("object")
      expect(d.exit_codes.map((c) => c.code)).toContain(2)
      const listed = await call("list_commands")
      const paths = (listed.structuredContent.commands as Array<{ path: Array<string> }>).map((c) =>
        c.path.join(" "),
      )
      expect(paths).toContain("mcp")
      expect(paths).toContain("daemons add")
      const wrong = await call("describe_command", { command: ["nosuch"] })
      expect(wrong.isError).toBe(true)
      expect(wrong.content[0]?.text).toMatch(/known commands/)
    },
    T,
  )
})
