import { Command, ValidationError } from "@effect/cli"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Layer } from "effect"
import { VERSION } from "../version.js"
import { cleanCommand, runCommand, waitCommand } from "./adhoc.js"
import { configCommand } from "./config.js"
import { disableCommand, enableCommand, restartCommand, startCommand, stopCommand } from "./daemons.js"
import { supervisorCommand } from "./host.js"
import { listCommand, statusCommand } from "./listing.js"
import { logsCommand } from "./logs.js"
import { ExitCode, exitWith } from "./output.js"
import { schemaCommand } from "./schema.js"
import { lazyTerminal } from "./terminal.js"

export const rootCommand = Command.make("supervisor").pipe(
  Command.withDescription("a daemon supervisor for developers"),
  Command.withSubcommands([
    startCommand,
    stopCommand,
    restartCommand,
    enableCommand,
    disableCommand,
    statusCommand,
    listCommand,
    logsCommand,
    runCommand,
    waitCommand,
    cleanCommand,
    supervisorCommand,
    configCommand,
    schemaCommand,
  ]),
)

const cli = Command.run(rootCommand, { name: "supervisor", version: VERSION })

// What @effect/cli and the commands use; not NodeContext, whose command executor and worker
// modules would be evaluated at every start for nothing, nor a terminal opened before a prompt.
const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, lazyTerminal)

/** Runs the CLI: usage errors exit 2, failures 1, and no stack trace reaches the user. */
/** pitchfork-compatible aliases: `ls` is `list`, `kill` is `stop`. */
const ALIASES: Record<string, string> = { ls: "list", kill: "stop" }
const withAliases = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2]
  return command !== undefined && command in ALIASES
    ? [...argv.slice(0, 2), ALIASES[command]!, ...argv.slice(3)]
    : argv
}

export const runCli = (argv: ReadonlyArray<string>) =>
  cli(withAliases(argv)).pipe(
    Effect.catchIf(ValidationError.isValidationError, () => exitWith(ExitCode.usage)),
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.void
      const squashed = Cause.squash(cause) as { readonly _tag?: unknown } | undefined
      // The supervisor went away mid-request (it is stopping or was killed): not our bug.
      const lost = squashed?._tag === "RequestError" || squashed?._tag === "ResponseError"
      const message = lost
        ? "error: lost the connection to the supervisor (it may be stopping); check `supervisor supervisor status` and try again"
        : `error: ${Cause.pretty(cause).split("\n")[0]}\n(this is a bug in supervisor; set SUPERVISOR_DEBUG=1 for details)`
      return Console.error(message).pipe(
        Effect.zipRight(process.env.SUPERVISOR_DEBUG ? Console.error(Cause.pretty(cause)) : Effect.void),
        Effect.zipRight(exitWith(ExitCode.failure)),
      )
    }),
    Effect.provide(platform),
    NodeRuntime.runMain({ disableErrorReporting: true }),
  )
