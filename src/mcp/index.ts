import * as nodePath from "node:path"
import type { CliApp, Command } from "@effect/cli"
import { Effect, Either, ParseResult, Runtime, Schema } from "effect"
import { defaultLoadOptions, loadConfig } from "../config/Loader.js"
import { currentNamespace } from "../control/selection.js"
import { DaemonList, DaemonStatusOutput, LogLines, StartOutcomes, StopResults } from "../domain/CliOutput.js"
import { VERSION } from "../domain/version.js"
import { describeCommand, listCommands } from "../usage/consume/index.js"
import { CommandDescription } from "../usage/consume/mcpResults.js"
import type { Spec } from "../usage/model.js"
import { type Captured, runCommand } from "./capture.js"
import type { McpDefinition, ToolDefinition, ToolResult } from "./definition.js"
import { logResources } from "./resources.js"
import {
  CommandsOutput,
  DescribeInput,
  daemonIds,
  hints,
  ListDaemonsInput,
  ListInput,
  ListOutput,
  LogsInput,
  LogsOutput,
  logsArgs,
  objectSchema,
  StartInput,
  StartOutput,
  StatusInput,
  StopInput,
  StopOutput,
} from "./tools.js"

/**
 * `supervisor mcp`: the tools and resources of the MCP server (docs/mcp.md). Each daemon tool runs
 * the CLI command it names in this process (same configuration, same SupervisorClient, the
 * supervisor started when needed) with `--json`, and returns what it printed decoded through the
 * command's own output Schema.
 */

/** A tool's answer: structured content encoded through its output Schema. */
const answer = <O, OI>(schema: Schema.Schema<O, OI>, value: O, c?: Captured): ToolResult => {
  const structured = Schema.encodeSync(schema)(value) as Record<string, unknown>
  const isError = c !== undefined && c.exitCode !== 0
  const notes = c?.stderr.trim() ?? ""
  const text = JSON.stringify(structured, null, 2)
  return { isError, structured, text: isError && notes !== "" ? `${notes}\n${text}` : text }
}

const failure = (c: Captured, command: string): ToolResult => ({
  isError: true,
  text: c.stderr.trim() || c.stdout.trim() || `supervisor ${command} failed with exit status ${c.exitCode}`,
})

/** The input Schema's decoding, with a message naming the keys at fault. */
const decodeInput = <I, II>(name: string, schema: Schema.Schema<I, II>, args: unknown) =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "all" })(args),
    (e): ToolResult => ({
      isError: true,
      text: `invalid arguments for ${name}:\n${ParseResult.TreeFormatter.formatErrorSync(e)}`,
    }),
  )

type Kind = "read" | "write" | "destructive"

const tool = <I, II, O, OI>(t: {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly kind: Kind
  readonly input: Schema.Schema<I, II>
  readonly output: Schema.Schema<O, OI>
  readonly call: (input: I) => Promise<ToolResult>
}): ToolDefinition => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: objectSchema(t.input),
  outputSchema: objectSchema(t.output),
  annotations: hints(t.title, t.kind),
  call: (args) => {
    const input = decodeInput(t.name, t.input, args)
    return Either.isLeft(input) ? Promise.resolve(input.left) : t.call(input.right)
  },
})

/**
 * The server's definition for the CLI tree `root` and its usage spec `spec` (the caller, cli/,
 * derives it from the tree); `runtime` runs its commands (the CLI's platform services: file
 * system, path, terminal).
 */
export const mcpDefinition = <N extends string, E, A>(
  root: Command.Command<N, CliApp.CliApp.Environment, E, A>,
  spec: Spec,
  runtime: Runtime.Runtime<CliApp.CliApp.Environment>,
): Effect.Effect<McpDefinition> =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    // one command at a time: each sets the process's exit status and captures its stdout
    const run = (args: ReadonlyArray<string>) =>
      Runtime.runPromise(runtime)(lock.withPermits(1)(runCommand(root, [...args, "--json"])))
    /** Runs `args --json` and decodes its stdout with `schema`; failures carry what it printed. */
    const cli = async <O, OI, W, WI>(
      args: ReadonlyArray<string>,
      schema: Schema.Schema<O, OI>,
      output: Schema.Schema<W, WI>,
      wrap: (value: O) => W,
    ): Promise<ToolResult> => {
      const c = await run(args)
      // a successful command's warnings (configuration, notices) go where a CLI's would: stderr
      if (c.exitCode === 0 && c.stderr !== "") process.stderr.write(c.stderr)
      const decoded = Schema.decodeUnknownEither(Schema.parseJson(schema))(c.stdout)
      return Either.isLeft(decoded) ? failure(c, args[0] ?? "") : answer(output, wrap(decoded.right), c)
    }
    /** The project the server was started in: its namespace (the CLI's, for short IDs, there). */
    const projectNamespace = () =>
      Runtime.runPromise(runtime)(
        loadConfig(defaultLoadOptions()).pipe(
          Effect.map(currentNamespace),
          // a configuration that cannot be read: `list` says why; the directory names the project
          Effect.orElseSucceed(() => nodePath.basename(process.cwd())),
        ),
      )
    const namespace = yield* Effect.promise(projectNamespace)
    const tools: ReadonlyArray<ToolDefinition> = [
      tool({
        name: "list",
        title: "List daemons",
        description:
          "the daemons of this project (with all, of every project the supervisor knows), with their status, pid, ports and uptime (supervisor list --namespace NS)",
        kind: "read",
        input: ListDaemonsInput,
        output: ListOutput,
        call: async (i) =>
          cli(
            ["list", ...(i.all ? [] : ["--namespace", await projectNamespace()])],
            DaemonList,
            ListOutput,
            (daemons) => ({ daemons }),
          ),
      }),
      tool({
        name: "status",
        title: "Daemon status",
        description: "one daemon's status (supervisor status ID)",
        kind: "read",
        input: StatusInput,
        output: DaemonStatusOutput,
        call: (i) => cli(["status", i.id], DaemonStatusOutput, DaemonStatusOutput, (s) => s),
      }),
      tool({
        name: "start",
        title: "Start daemons",
        description:
          "start daemons and wait until they are ready (supervisor start); with force, restart those already running (destructive)",
        kind: "destructive",
        input: StartInput,
        output: StartOutput,
        call: (i) =>
          cli(
            ["start", ...daemonIds(i), ...(i.force ? ["--force"] : [])],
            StartOutcomes,
            StartOutput,
            (outcomes) => ({
              outcomes,
            }),
          ),
      }),
      tool({
        name: "stop",
        title: "Stop daemons",
        description: "stop daemons, their whole process group (supervisor stop)",
        kind: "destructive",
        input: StopInput,
        output: StopOutput,
        call: (i) => cli(["stop", ...daemonIds(i)], StopResults, StopOutput, (results) => ({ results })),
      }),
      tool({
        name: "restart",
        title: "Restart daemons",
        description: "stop then start daemons, waiting until they are ready (supervisor restart)",
        kind: "destructive",
        input: StopInput,
        output: StartOutput,
        call: (i) =>
          cli(["restart", ...daemonIds(i)], StartOutcomes, StartOutput, (outcomes) => ({ outcomes })),
      }),
      tool({
        name: "logs",
        title: "Daemon logs",
        description: "the last lines of daemons' logs, filtered by time and text (supervisor logs)",
        kind: "read",
        input: LogsInput,
        output: LogsOutput,
        call: (i) => cli(["logs", ...logsArgs(i)], LogLines, LogsOutput, (lines) => ({ lines })),
      }),
      tool({
        name: "describe_command",
        title: "Describe a CLI command",
        description:
          "how to call a supervisor CLI command: its flags, arguments, outputs (with JSON Schemas) and exit codes, from the CLI's usage spec",
        kind: "read",
        input: DescribeInput,
        output: CommandDescription,
        call: async (i) => {
          const found = describeCommand(spec, i.command)
          return found.ok
            ? answer(CommandDescription, found.command)
            : {
                isError: true,
                text: [found.error, "known commands:", ...found.known.map((k) => `  ${k}`)].join("\n"),
              }
        },
      }),
      tool({
        name: "list_commands",
        title: "List CLI commands",
        description:
          "every supervisor CLI command with its help and effect (read, write, destructive), from the usage spec",
        kind: "read",
        input: ListInput,
        output: CommandsOutput,
        call: async () => answer(CommandsOutput, { commands: listCommands(spec) }),
      }),
    ]
    return {
      version: VERSION,
      instructions: `Manages the daemons of the project this server was started in (namespace ${namespace}, its supervisor.toml), like the supervisor CLI there: a short ID (api) is this project's daemon, a qualified one (proj/api) another project's. \`list\` shows this project's daemons (all: true, every project's). Each of this project's daemons has its recent log as a resource (supervisor://logs/${namespace}/NAME).`,
      tools,
      resources: logResources(run, projectNamespace),
    }
  })
