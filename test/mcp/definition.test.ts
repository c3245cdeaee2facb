import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { HttpClient } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import { cliSpec } from "../../src/cli/usageSpec/cliSpec.js"
import type { AnyCliCommand } from "../../src/cli/usageSpec/effectCli.js"
import type { LoadOptions } from "../../src/config/Loader.js"
import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import { VERSION } from "../../src/domain/version.js"
import { type ApiClient, type Connect, McpSupervisor } from "../../src/mcp/connection.js"
import type { ToolDefinition } from "../../src/mcp/definition.js"
import { mcpDefinition } from "../../src/mcp/index.js"

/** A project directory `app` with two daemons, `api` depending on `web`, and its own HOME. */
const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "mcp-def-"))
const app = nodePath.join(root, "app")
fs.mkdirSync(app)
fs.mkdirSync(nodePath.join(root, "home"))
fs.writeFileSync(
  nodePath.join(app, "supervisor.toml"),
  '[daemons.web]\nrun = "sleep 1"\n\n[daemons.api]\nrun = "sleep 1"\ndepends = ["web"]\n',
)
const here: LoadOptions = { cwd: app, env: { HOME: nodePath.join(root, "home") } }
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A listing entry of the API: `id` in its status. */
const entry = (qualified: string, type: "running" | "stopped"): ApiDaemonEntry => {
  const [namespace, name] = qualified.split("/") as [string, string]
  return {
    id: { namespace, name, qualified, safe_path: `${namespace}--${name}` },
    title: name,
    pid: type === "running" ? 4242 : null,
    status: { type },
    dir: app,
    cpu_percent: 0,
    memory_bytes: 0,
    uptime_secs: 0,
    proxy_url: null,
    slug: null,
    active_port: null,
    resolved_port: [],
    enabled: true,
    adhoc: false,
    run: "sleep 1",
    retry_count: 0,
    next_retry: null,
    source: nodePath.join(app, "supervisor.toml"),
    next_run: null,
    watch_problem: null,
    pty: false,
    stdin: "null",
  }
}

/**
 * A fake supervisor API: the routes the tools use, each request recorded in `seen`, answering
 * from `known` (the listing). Only those routes exist: the cast says so.
 */
const fakeApi = (known: ReadonlyArray<ApiDaemonEntry>, seen: Array<string>) =>
  ({
    daemons: {
      list: () =>
        Effect.sync(() => {
          seen.push("GET /api/daemons")
          return known
        }),
    },
    commands: {
      handle: ({
        payload,
      }: {
        payload: {
          _tag: string
          selection: { ids: ReadonlyArray<string>; from?: { _tag: string; cwd?: string } }
          force?: boolean
          lines?: number
          grep?: ReadonlyArray<string>
          reason: string
        }
      }) =>
        Effect.sync(() => {
          const from = payload.selection.from
          seen.push(
            `${payload._tag} ${payload.selection.ids.join(" ")}${payload.force ? " force" : ""}${payload.lines === undefined ? "" : ` -n ${payload.lines}`}${payload.grep ? ` grep ${payload.grep.join(",")}` : ""} from ${from?._tag} ${from?.cwd === app ? "here" : from?.cwd} by ${payload.reason}`,
          )
          return payload._tag === "Stop"
            ? payload.selection.ids.map((id) => ({ id, was_running: true, killed: false }))
            : []
        }),
    },
    cli: {
      logs: ({
        payload,
      }: {
        payload: { ids: ReadonlyArray<string>; lines?: number; grep?: ReadonlyArray<string> }
      }) =>
        Effect.sync(() => {
          seen.push(
            `logs ${payload.ids.join(" ")} -n ${payload.lines}${payload.grep ? ` grep ${payload.grep.join(",")}` : ""}`,
          )
          return []
        }),
    },
  }) as unknown as ApiClient

const fakeConnect =
  (known: ReadonlyArray<ApiDaemonEntry>, seen: Array<string>): Connect =>
  () =>
    Layer.succeed(McpSupervisor, {
      api: fakeApi(known, seen),
      http: HttpClient.make(() => Effect.die("no event stream in this test")),
    })

/** No supervisor at all: the tools that need none must not connect. */
const noSupervisor: Connect = () => Layer.die("no supervisor in this test")

const spec = cliSpec(rootCommand as unknown as AnyCliCommand, { version: VERSION })

const toolsOf = async (connect: Connect) => {
  const def = await Effect.runPromise(
    mcpDefinition(spec, connect, here).pipe(Effect.provide(NodeContext.layer)),
  )
  return Object.fromEntries(def.tools.map((t) => [t.name, t])) as Record<string, ToolDefinition>
}

describe("mcpDefinition", () => {
  it("declares each tool's input and output as object JSON Schemas, with the hints of what it does", async () => {
    const tools = await toolsOf(noSupervisor)
    expect(Object.keys(tools).sort()).toEqual(
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
    for (const t of Object.values(tools)) {
      expect(t.inputSchema.type).toBe("object")
      expect(t.outputSchema.type).toBe("object")
    }
    expect(tools.logs?.inputSchema.properties).toMatchObject({
      ids: { type: "array" },
      n: { type: "integer" },
      since: { type: "string" },
      grep: { type: "array" },
    })
    expect(tools.start?.inputSchema.properties).toHaveProperty("force")
    // pitchfork's `id`: one ID or a list of them, beside our `ids`
    for (const name of ["start", "stop", "restart", "logs"])
      expect(tools[name]?.inputSchema.properties).toMatchObject({
        ids: { type: "array", items: { type: "string" } },
        id: {
          anyOf: [
            { type: "string", pattern: "^[^-\\s][^\\s]*$" },
            { type: "array", items: { type: "string", pattern: "^[^-\\s][^\\s]*$" } },
          ],
        },
      })
    expect(tools.list?.inputSchema.properties).toMatchObject({ all: { type: "boolean" } })
    // identified Schemas are inlined at the root, not left as a $ref
    expect(tools.status?.outputSchema).not.toHaveProperty("$ref")
    expect(tools.status?.outputSchema.properties).toHaveProperty("status_text")
    expect(tools.describe_command?.outputSchema.properties).toHaveProperty("exit_codes")
    for (const name of ["start", "stop", "restart"]) {
      expect(tools[name]?.annotations.destructiveHint).toBe(true)
      expect(tools[name]?.annotations.readOnlyHint).toBe(false)
    }
    for (const name of [
      "list",
      "status",
      "logs",
      "wait_ready",
      "config",
      "describe_command",
      "list_commands",
    ])
      expect(tools[name]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
  })

  it("describes commands from the CLI's usage spec, with outputs and exit codes", async () => {
    const tools = await toolsOf(noSupervisor)
    const r = await tools.describe_command!.call({ command: ["stop"] })
    expect(r.isError).toBe(false)
    const d = r.structured as {
      path: Array<string>
      outputs: Array<{ name: string }>
      exit_codes: Array<{ code: number }>
    }
    expect(d.path).toEqual(["stop"])
    expect(d.outputs.map((o) => o.name)).toContain("json")
    expect(d.exit_codes.map((c) => c.code)).toEqual(expect.arrayContaining([0, 1, 2]))
    const list = await tools.list_commands!.call({})
    const commands = list.structured?.commands as Array<{ path: Array<string> }> | undefined
    expect(commands).toBeDefined()
    const paths = (commands ?? []).map((c) => c.path.join(" "))
    expect(paths).toEqual(expect.arrayContaining(["start", "logs", "mcp", "spec describe"]))
    const unknown = await tools.describe_command!.call({ command: ["nosuch"] })
    expect(unknown).toMatchObject({ isError: true })
    expect(unknown.text).toMatch(/unknown command "supervisor nosuch"[\s\S]*known commands:/)
  })

  it("refuses bad arguments naming the key, before running anything", async () => {
    const tools = await toolsOf(noSupervisor)
    const r = await tools.logs!.call({ n: "ten", extra: 1 })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/invalid arguments for logs/)
    expect(r.text).toMatch(/\["n"\]/)
    expect(r.text).toMatch(/\["extra"\]/)
    const dash = await tools.stop!.call({ ids: ["--all"] })
    expect(dash.isError).toBe(true)
    expect(dash.text).toMatch(/not starting with -/)
  })

  it("takes pitchfork's arguments: `id` (a list or one ID) and `force`, and `n` for logs; sends the actions as commands", async () => {
    const seen: Array<string> = []
    const tools = await toolsOf(fakeConnect([entry("app/web", "running"), entry("app/api", "running")], seen))
    const calls: Array<[string, Record<string, unknown>]> = [
      ["start", { id: ["web", "api"], force: true }],
      ["start", { id: "api" }],
      ["stop", { id: ["web", "api"] }],
      ["restart", { id: "web" }],
      ["logs", { id: ["web"], n: 5, grep: ["up"] }],
      ["start", { ids: ["api"], id: ["web", "api"] }],
    ]
    for (const [name, args] of calls) {
      const r = await tools[name]!.call(args)
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(false)
    }
    // the daemon actions and logs are commands with the IDs as typed, read from the server's
    // directory (the supervisor resolves them)
    expect(seen.filter((s) => s !== "GET /api/daemons")).toEqual([
      "Start web api force from Directory here by mcp",
      "Start api from Directory here by mcp",
      "Stop web api from Directory here by mcp",
      "Restart web from Directory here by mcp",
      "Logs web -n 5 grep up from Directory here by mcp",
      "Start api web from Directory here by mcp",
    ])
    const dash = await tools.stop!.call({ id: "--all" })
    expect(dash).toMatchObject({ isError: true })
    expect(dash.text).toMatch(/not starting with -/)
  })

  it("lists the daemons of the project it was started in; with all, every project's", async () => {
    const seen: Array<string> = []
    const tools = await toolsOf(fakeConnect([entry("app/web", "running"), entry("other/x", "stopped")], seen))
    const ids = async (args: Record<string, unknown>) =>
      ((await tools.list!.call(args)).structured!.daemons as Array<{ id: { qualified: string } }>).map(
        (d) => d.id.qualified,
      )
    expect(await ids({})).toEqual(["app/web"])
    expect(await ids({ all: true })).toEqual(["app/web", "other/x"])
  })

  it("answers with the API's values through the output Schemas; a failure is an error result with its message", async () => {
    const seen: Array<string> = []
    const tools = await toolsOf(fakeConnect([], seen))
    const listed = await tools.list!.call({})
    expect(listed).toEqual({ isError: false, structured: { daemons: [] }, text: '{\n  "daemons": []\n}' })
    const failed = await tools.status!.call({ id: "nosuch" })
    expect(failed.isError).toBe(true)
    expect(failed.text).toMatch(/^error: daemon nosuch not found/)
    const down = await (
      await toolsOf(() => Layer.fail({ _tag: "NotRunning", message: "the supervisor is not running" }))
    ).stop!.call({ ids: ["web"] })
    expect(down).toEqual({ isError: true, text: "error: the supervisor is not running" })
  })
})
