import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect } from "effect"
import { VERSION } from "../version.js"
import { configCommand } from "./config.js"
import { ExitCode, exitWith } from "./output.js"
import { schemaCommand } from "./schema.js"

export const rootCommand = Command.make("supervisor").pipe(
  Command.withDescription("a daemon supervisor for developers"),
  Command.withSubcommands([configCommand, schemaCommand]),
)

const cli = Command.run(rootCommand, { name: "supervisor", version: VERSION })

/** Runs the CLI: usage errors exit 2, failures 1, and no stack trace reaches the user. */
export const runCli = (argv: ReadonlyArray<string>) =>
  cli(argv).pipe(
    Effect.catchIf(ValidationError.isValidationError, () => exitWith(ExitCode.usage)),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.void
        : Console.error(
            `error: ${Cause.pretty(cause).split("\n")[0]}\n(this is a bug in supervisor; set SUPERVISOR_DEBUG=1 for details)`,
          ).pipe(
            Effect.zipRight(process.env.SUPERVISOR_DEBUG ? Console.error(Cause.pretty(cause)) : Effect.void),
            Effect.zipRight(exitWith(ExitCode.failure)),
          ),
    ),
    Effect.provide(NodeContext.layer),
    NodeRuntime.runMain({ disableErrorReporting: true }),
  )
