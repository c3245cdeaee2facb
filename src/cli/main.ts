import { Command, ValidationError } from "@effect/cli"
import { Effect } from "effect"
import { VERSION } from "../version.js"
import { cleanCommand, runCommand, waitCommand } from "./adhoc.js"
import { configCommand } from "./config.js"
import { disableCommand, enableCommand, restartCommand, startCommand, stopCommand } from "./daemons.js"
import { supervisorCommand } from "./host.js"
import { listCommand, statusCommand } from "./listing.js"
import { logsCommand } from "./logs.js"
import { ExitCode, exitWith } from "./output.js"
import { withOptionalBumpValue } from "./portFlags.js"
import { runProgram } from "./program.js"
import { schemaCommand } from "./schema.js"
import { specCommand } from "./spec.js"
import { usageCommand } from "./usageCommand.js"
import { webCommand } from "./web.js"

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
    webCommand,
    specCommand,
    usageCommand,
  ]),
)

const cli = Command.run(rootCommand, { name: "supervisor", version: VERSION })

/** pitchfork-compatible aliases: `ls` is `list`, `kill` is `stop`. */
const ALIASES: Record<string, string> = { ls: "list", kill: "stop" }
const withAliases = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2]
  return command !== undefined && command in ALIASES
    ? [...argv.slice(0, 2), ALIASES[command]!, ...argv.slice(3)]
    : argv
}

/** Runs the CLI: usage errors exit 2, failures 1, and no stack trace reaches the user. */
export const runCli = (argv: ReadonlyArray<string>) =>
  runProgram(
    cli(withOptionalBumpValue(withAliases(argv))).pipe(
      Effect.catchIf(ValidationError.isValidationError, () => exitWith(ExitCode.usage)),
    ),
  )
