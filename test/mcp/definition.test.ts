import { Args, type CliApp, Command, Options } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import type { McpRoot } from "../../src/cli/mcpCommand.js"
import { cliSpec } from "../../src/cli/usageSpec/cliSpec.js"
import { defaultLoadOptions, loadConfig } from "../../src/config/Loader.js"
import { currentNamespace } from "../../src/control/selection.js"
import { VERSION } from "../../src/domain/version.js"
import type { ToolDefinition } from "../../src/mcp/definition.js"
import { mcpDefinition } from "../../src/mcp/index.js"

const runtime = Effect.runPromise(
  Effect.runtime<CliApp.CliApp.Environment>().pipe(Effect.provide(NodeContext.layer)),
)

/**
 * A stand-in CLI: `list --json` prints an empty list, `status ID --json` fails like the CLI does;
 * the daemon commands print no outcomes and record the command line they were given in `seen`.
 */
const json = Options.boolean("json")
const seen: Array<string> = []
const ids = Args.text({ name: "id" }).pipe(Args.repeated)
const force = Options.boolean("force")
const n = Options.integer("n").pipe(Options.optional)
const namespace = Options.text("namespace").pipe(Options.optional)
const record = (line: string, printed: string) =>
  Effect.sync(() => seen.push(line)).pipe(Effect.zipRight(Console.log(printed)))
const fakeRoot = Command.make("supervisor").pipe(
  Command.withSubcommands([
    Command.make("list", { json, namespace }, (o) =>
      record(`list ${Option.getOrElse(o.namespace, () => "(all)")}`, "[]"),
    ),
    Command.make("start", { json, ids, force }, (o) =>
      record(`start ${o.ids.join(" ")}${o.force ? " --force" : ""}`, "[]"),
    ),
    Command.make("stop", { json, ids }, (o) => record(`stop ${o.ids.join(" ")}`, "[]")),
    Command.make("restart", { json, ids }, (o) => record(`restart ${o.ids.join(" ")}`, "[]")),
    Command.make("logs", { json, ids, n }, (o) =>
      record(`logs ${o.ids.join(" ")} -n ${Option.getOrElse(o.n, () => 0)}`, "[]"),
    ),
    Command.make("status", { json, id: Args.text({ name: "id" }) }, () =>
      Console.error("error: no daemon nosuch").pipe(
        Effect.zipRight(
          Effect.sync(() => {
            process.exitCode = 1
          }),
        ),
      ),
    ),
  ]),
)

const toolsOf = async (root: McpRoot) => {
  const def = await Effect.runPromise(mcpDefinition(root, cliSpec(root, { version: VERSION }), await runtime))
  return Object.fromEntries(def.tools.map((t) => [t.name, t])) as Record<string, ToolDefinition>
}

describe("mcpDefinition", () => {
  it("declares each tool's input and output as object JSON Schemas, with the hints of what it does", async () => {
    const tools = await toolsOf(rootCommand as McpRoot)
    expect(Object.keys(tools).sort()).toEqual(
      ["describe_command", "list", "list_commands", "logs", "restart", "start", "status", "stop"].sort(),
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
    for (const name of ["list", "status", "logs", "describe_command", "list_commands"])
      expect(tools[name]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
  })

  it("describes commands from the CLI's usage spec, with outputs and exit codes", async () => {
    const tools = await toolsOf(rootCommand as McpRoot)
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
    const tools = await toolsOf(rootCommand as McpRoot)
    const r = await tools.logs!.call({ n: "ten", extra: 1 })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/invalid arguments for logs/)
    expect(r.text).toMatch(/\["n"\]/)
    expect(r.text).toMatch(/\["extra"\]/)
    const dash = await tools.stop!.call({ ids: ["--all"] })
    expect(dash.isError).toBe(true)
    expect(dash.text).toMatch(/not starting with -/)
  })

  it("takes pitchfork's arguments: `id` (a list or one ID) and `force`, and `n` for logs", async () => {
    const tools = await toolsOf(fakeRoot as unknown as McpRoot)
    seen.length = 0
    const calls: Array<[string, Record<string, unknown>]> = [
      ["start", { id: ["web", "api"], force: true }],
      ["start", { id: "web" }],
      ["stop", { id: ["web"] }],
      ["restart", { id: "web" }],
      ["logs", { id: ["web"], n: 5 }],
      ["start", { ids: ["api"], id: ["web", "api"] }],
    ]
    for (const [name, args] of calls) {
      const r = await tools[name]!.call(args)
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(false)
    }
    expect(seen).toEqual([
      "start web api --force",
      "start web",
      "stop web",
      "restart web",
      "logs web -n 5",
      "start api web",
    ])
    const dash = await tools.stop!.call({ id: "--all" })
    expect(dash).toMatchObject({ isError: true })
    expect(dash.text).toMatch(/not starting with -/)
  })

  it("lists the daemons of the project it was started in; with all, every project's", async () => {
    const tools = await toolsOf(fakeRoot as unknown as McpRoot)
    seen.length = 0
    await tools.list!.call({})
    await tools.list!.call({ all: true })
    // the namespace short IDs mean here, as the CLI resolves them
    const here = await Effect.runPromise(
      loadConfig(defaultLoadOptions()).pipe(Effect.map(currentNamespace), Effect.provide(NodeContext.layer)),
    )
    expect(seen).toEqual([`list ${here}`, "list (all)"])
  })

  it("runs the command with --json, decodes its output, and reports its failure with what it printed", async () => {
    const before = process.exitCode
    const tools = await toolsOf(fakeRoot as unknown as McpRoot)
    const listed = await tools.list!.call({})
    expect(listed).toEqual({ isError: false, structured: { daemons: [] }, text: '{\n  "daemons": []\n}' })
    const failed = await tools.status!.call({ id: "nosuch" })
    expect(failed).toEqual({ isError: true, text: "error: no daemon nosuch" })
    // the command's exit status is the tool's, not the server's
    expect(process.exitCode).toBe(before)
  })
})
