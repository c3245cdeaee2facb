import { Cause, Effect, Either, Exit, Option, ParseResult, Runtime, Schema } from "effect"
import type { LoadOptions } from "../config/Loader.js"
import { DaemonStatusOutput, InputResult, ScaleResult } from "../domain/CliOutput.js"
import { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { VERSION } from "../domain/version.js"
import { outcomeStatus } from "../terminal/startText.js"
import { describeCommand, listCommands } from "../usage/consume/index.js"
import { CommandDescription } from "../usage/consume/mcpResults.js"
import type { Spec } from "../usage/model.js"
import type { Connect } from "./connection.js"
import type { McpDefinition, ToolDefinition, ToolResult } from "./definition.js"
import { type Answer, operations, projectNamespace, type ToolFailure } from "./operations.js"
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
  objectSchema,
  ScaleInput,
  SendInput,
  StartInput,
  StartOutput,
  StatusInput,
  StopInput,
  StopOutput,
  WaitReadyInput,
} from "./tools.js"
import { WaitReadyOutput } from "./waitReady.js"
import { watchDaemons } from "./watch.js"

/**
 * `supervisor mcp`: the tools and resources of the MCP server (docs/mcp.md). Each daemon tool asks
 * the supervisor's HTTP API through its typed client (src/mcp/operations.ts), with the
 * configuration and ID resolution of the CLI in the server's directory, and answers with the
 * API's values encoded through the Schemas the CLI prints its `--json` through.
 */

/**
 * A tool's answer: structured content encoded through its output Schema. It is an error when the
 * call met problems on the way (they head the text) or `failed` says the value is a failure.
 */
const answer = <O, OI>(
  schema: Schema.Schema<O, OI>,
  value: O,
  problems: ReadonlyArray<string> = [],
  failed = false,
): ToolResult => {
  const structured = Schema.encodeSync(schema)(value) as Record<string, unknown>
  const text = JSON.stringify(structured, null, 2)
  const isError = failed || problems.length > 0
  return { isError, structured, text: problems.length > 0 ? `${problems.join("\n")}\n${text}` : text }
}

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

/** The platform services the tools read the configuration with (file system, path). */
type ToolEnv = Effect.Effect.Context<ReturnType<typeof projectNamespace>>

/**
 * The server's definition for the CLI's usage spec `spec` (the caller, cli/, derives it from its
 * tree); `connect` reaches the supervisor for each call (the CLI's connection, which starts it
 * when it is not running); `here` is the directory and environment the configuration is read from.
 */
export const mcpDefinition = (
  spec: Spec,
  connect: Connect,
  here: LoadOptions,
): Effect.Effect<McpDefinition, never, ToolEnv> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<ToolEnv>()
    const ops = operations(connect, here)
    /** Runs an operation; its failure is an error result with its message. */
    const run = async <A>(
      op: Effect.Effect<Answer<A>, ToolFailure, ToolEnv>,
      done: (a: Answer<A>) => ToolResult,
    ): Promise<ToolResult> => {
      const exit = await Runtime.runPromiseExit(runtime)(op)
      if (Exit.isSuccess(exit)) return done(exit.value)
      const failure = Cause.failureOption(exit.cause)
      return {
        isError: true,
        text: Option.isSome(failure)
          ? failure.value.message
          : `error: ${Cause.pretty(exit.cause).split("\n")[0]}`,
      }
    }
    const namespace = yield* projectNamespace(here)
    const tools: ReadonlyArray<ToolDefinition> = [
      tool({
        name: "list",
        title: "List daemons",
        description:
          "the daemons of this project (with all, of every project the supervisor knows), with their status, pid, ports and uptime (GET /api/daemons)",
        kind: "read",
        input: ListDaemonsInput,
        output: ListOutput,
        call: async (i) => {
          const ns = i.all ? undefined : await Runtime.runPromise(runtime)(projectNamespace(here))
          return run(ops.list(ns), (a) => answer(ListOutput, { daemons: a.value }, a.problems))
        },
      }),
      tool({
        name: "status",
        title: "Daemon status",
        description: "one daemon's status (as supervisor status ID --json)",
        kind: "read",
        input: StatusInput,
        output: DaemonStatusOutput,
        call: (i) => run(ops.status(i.id), (a) => answer(DaemonStatusOutput, a.value, a.problems)),
      }),
      tool({
        name: "start",
        title: "Start daemons",
        description:
          "start daemons with the dependencies they need and wait until they are ready (as supervisor start); with force, restart those already running (destructive)",
        kind: "destructive",
        input: StartInput,
        output: StartOutput,
        call: (i) =>
          run(ops.start(daemonIds(i), i.force ?? false), (a) =>
            answer(StartOutput, { outcomes: a.value }, a.problems, outcomeStatus(a.value) !== 0),
          ),
      }),
      tool({
        name: "stop",
        title: "Stop daemons",
        description: "stop daemons, their whole process group, dependents first (as supervisor stop)",
        kind: "destructive",
        input: StopInput,
        output: StopOutput,
        call: (i) => run(ops.stop(daemonIds(i)), (a) => answer(StopOutput, { results: a.value }, a.problems)),
      }),
      tool({
        name: "scale",
        title: "Scale a daemon",
        description:
          "set how many instances of a daemon with `instances` run, waiting until the new ones are ready; those above the count stop, the highest first (as supervisor scale)",
        kind: "destructive",
        input: ScaleInput,
        output: ScaleResult,
        call: (i) =>
          run(ops.scale(i.id, i.count), (a) =>
            answer(ScaleResult, a.value, a.problems, outcomeStatus(a.value.started) !== 0),
          ),
      }),
      tool({
        name: "send_input",
        title: "Type into a daemon",
        description:
          'type text and keys into a running daemon with pty = true or stdin = "pipe": a REPL, a dev server asking a question (as supervisor send); its answer shows in its logs',
        kind: "write",
        input: SendInput,
        output: InputResult,
        call: (i) => run(ops.send(i), (a) => answer(InputResult, a.value, a.problems)),
      }),
      tool({
        name: "restart",
        title: "Restart daemons",
        description: "stop then start daemons, waiting until they are ready (as supervisor restart)",
        kind: "destructive",
        input: StopInput,
        output: StartOutput,
        call: (i) =>
          run(ops.restart(daemonIds(i)), (a) =>
            answer(StartOutput, { outcomes: a.value }, a.problems, outcomeStatus(a.value) !== 0),
          ),
      }),
      tool({
        name: "logs",
        title: "Daemon logs",
        description: "the last lines of daemons' logs, filtered by time and text (as supervisor logs)",
        kind: "read",
        input: LogsInput,
        output: LogsOutput,
        call: (i) =>
          run(ops.logs({ ids: daemonIds(i), lines: i.n ?? 100, since: i.since, grep: i.grep }), (a) =>
            answer(LogsOutput, { lines: a.value }, a.problems),
          ),
      }),
      tool({
        name: "wait_ready",
        title: "Wait until a daemon is ready",
        description:
          "after editing code: wait until the daemon's next run (the restart a watched file or a command made) is ready, or say why not, with its failing readiness output or last log lines (from the supervisor's event stream)",
        kind: "read",
        input: WaitReadyInput,
        output: WaitReadyOutput,
        call: (i) =>
          run(ops.waitReady(i.id, { since: i.since, timeout: i.timeout ?? 60 }), (a) =>
            answer(WaitReadyOutput, a.value, a.problems, a.value.outcome !== "ready"),
          ),
      }),
      tool({
        name: "config",
        title: "Configuration",
        description:
          "the merged configuration of this project and the global files, with the files it came from (as supervisor config show --json); env values of secret names (settings.general.secret_patterns) are masked",
        kind: "read",
        input: ListInput,
        output: ResolvedConfig,
        call: () => run(ops.config, (a) => answer(ResolvedConfig, a.value, a.problems)),
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
    const runOrThrow = async <A>(op: Effect.Effect<Answer<A>, ToolFailure, ToolEnv>): Promise<A> => {
      const exit = await Runtime.runPromiseExit(runtime)(op)
      if (Exit.isSuccess(exit)) return exit.value.value
      const failure = Cause.failureOption(exit.cause)
      throw new Error(
        Option.isSome(failure) ? failure.value.message : Cause.pretty(exit.cause).split("\n")[0],
      )
    }
    return {
      version: VERSION,
      instructions: `Manages the daemons of the project this server was started in (namespace ${namespace}, its supervisor.toml), like the supervisor CLI there: a short ID (api) is this project's daemon, a qualified one (proj/api) another project's. \`list\` shows this project's daemons (all: true, every project's). Each of this project's daemons has its recent log as a resource (supervisor://logs/${namespace}/NAME).`,
      tools,
      watch: (onDaemonChanged) => watchDaemons(runtime, connect, onDaemonChanged),
      resources: logResources({
        list: async () => runOrThrow(ops.list(await Runtime.runPromise(runtime)(projectNamespace(here)))),
        logs: (id, lines) => runOrThrow(ops.logs({ ids: [id], lines })),
      }),
    }
  })
