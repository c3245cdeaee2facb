import { Command, ValidationError } from "@effect/cli"
import { Console, Effect } from "effect"
import { stderrLevelProblem } from "../domain/stderrLevel.js"
import { VERSION } from "../domain/version.js"
import { stripAnsi } from "../logs/ansi.js"
import type { Shell } from "../usage/consume/completion.js"
import { runFlagsCommand } from "./adhoc.js"
import { withAliases } from "./aliases.js"
import {
  missingValueProblem,
  repeatedFlagProblem,
  subcommandProblem,
  subcommands,
  valueFlags,
  withAttachedValues,
} from "./argvChecks.js"
import { rootCommand } from "./commands.js"
import { printCompletions } from "./completions.js"
import { printHelp, wantsHelp } from "./help.js"
import { ExitCode, exitWith, warn } from "./output.js"
import { withOptionalBumpValue } from "./portFlags.js"
import { runProgram } from "./program.js"
import { isRemote, REMOTE_REFUSAL_EXIT, remoteRefusal, takeRemoteFlags } from "./remote.js"
import { dashAddCommand, holdRunCommand, runHead } from "./runArgs.js"
import { commandProblem, unknownFlagProblem } from "./unknownWords.js"
import { usageMessage } from "./usageMessages.js"

const cli = Command.run(rootCommand, { name: "supervisor", version: VERSION })

/**
 * What @effect/cli would misread, as usage errors: a value flag without its value and a missing
 * or unknown subcommand (src/cli/argvChecks.ts), and for `run` the ID and flags before `--`,
 * checked on their own (src/cli/runArgs.ts), so that an unknown flag or a missing ID is not part
 * of the command. False when it has reported a problem.
 */
const checkArgs = (argv: ReadonlyArray<string>) => {
  const usageError = (problem: string) =>
    Console.error(`error: ${problem}`).pipe(Effect.zipRight(exitWith(ExitCode.usage)), Effect.as(false))
  const args = argv.slice(2)
  const missing =
    commandProblem(args) ??
    missingValueProblem(args) ??
    subcommandProblem(args) ??
    unknownFlagProblem(args) ??
    repeatedFlagProblem(args)
  if (missing !== undefined) return usageError(missing)
  // against a supervisor at a URL: the commands that need this machine's files, in one line
  // the shell hook's `cd` at every prompt: nothing to do here for a supervisor elsewhere
  if (isRemote() && args[0] === "cd") return Effect.succeed(false)
  const refusal = isRemote() ? remoteRefusal(args) : undefined
  if (refusal !== undefined)
    return Console.error(`error: ${refusal}`).pipe(
      Effect.zipRight(exitWith(REMOTE_REFUSAL_EXIT)),
      Effect.as(false),
    )
  const [first, shell] = argv.slice(2)
  if (first === "--completions") return printCompletions(rootCommand, shell as Shell).pipe(Effect.as(false))
  const head = runHead(argv)
  if (head === undefined) return Effect.succeed(true)
  if ("problem" in head) return usageError(head.problem)
  // as the root command of its own: its arguments come right after the program's two
  return withUsageMessages(
    argv,
    Command.run(runFlagsCommand, { name: "supervisor run", version: VERSION })([
      ...argv.slice(0, 2),
      // a bare `--bump` as the full parse will see it
      ...withOptionalBumpValue([...argv.slice(0, 3), ...head]).slice(3),
    ]),
  ).pipe(Effect.as(true))
}

/** @effect/cli's parse errors in the CLI's wording (src/cli/usageMessages.ts), with a help hint. */
const withUsageMessages = <A, E, R>(argv: ReadonlyArray<string>, self: Effect.Effect<A, E, R>) => {
  const [command, sub] = withAliases(argv).slice(2)
  const words =
    command === undefined || command.startsWith("-")
      ? []
      : sub !== undefined && Object.hasOwn(subcommands(), command) && subcommands()[command]?.includes(sub)
        ? [command, sub]
        : [command]
  return Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(self, {
      ...console,
      error: (...args: ReadonlyArray<unknown>) => {
        const [first] = args
        const message =
          args.length === 1 && typeof first === "string"
            ? usageMessage(stripAnsi(first), words, argv.slice(2))
            : undefined
        return console.error(...(message === undefined ? args : [message]))
      },
    }),
  )
}

/** The exit status a command asked for, applied to the process here and nowhere else. */
const applyExit = (status: number) => {
  if (status !== 0) process.exitCode = status
}

/** Runs the CLI: usage errors exit 2, failures 1, and no stack trace reaches the user. */
export const runCli = (argvTyped: ReadonlyArray<string>) => {
  // the global `--url`, `--token-file`, `--ca` go into the environment (src/cli/remote.ts)
  const remote = takeRemoteFlags(argvTyped.slice(2), process.env)
  const typed = [...argvTyped.slice(0, 2), ...remote.args]
  // an alias stands for its command everywhere: help, checks, `run`'s words
  const argv = dashAddCommand(withAliases(typed), (flag) => valueFlags().has(flag))
  // a SUPERVISOR_LOG that names no level is said once, and counts as info
  const level = stderrLevelProblem()
  if (remote.problem !== undefined)
    return runProgram(
      Console.error(`error: ${remote.problem}`).pipe(Effect.zipRight(exitWith(ExitCode.usage))),
      applyExit,
    )
  return runProgram(
    (level === undefined ? Effect.void : warn(level)).pipe(
      Effect.zipRight(
        wantsHelp(argv.slice(2)) ? printHelp(argv.slice(2)).pipe(Effect.as(false)) : checkArgs(argv),
      ),
      Effect.flatMap((ok) =>
        ok
          ? withUsageMessages(
              argv,
              cli(withOptionalBumpValue(withAttachedValues(withAliases(holdRunCommand(argv))))),
            )
          : Effect.void,
      ),
      Effect.catchIf(ValidationError.isValidationError, () => exitWith(ExitCode.usage)),
    ),
    applyExit,
  )
}
