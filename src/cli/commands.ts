import { Command } from "@effect/cli"
import type { Effect } from "effect"
import { cleanCommand, runCommand, waitCommand } from "./adhoc.js"
import { bootCommand } from "./boot.js"
import { completeCommand } from "./complete.js"
import { completionCommand } from "./completion.js"
import { configCommand } from "./config.js"
import { disableCommand, enableCommand, restartCommand, startCommand, stopCommand } from "./daemons.js"
import { daemonsCommand } from "./daemonsEdit.js"
import { exportCommand } from "./export.js"
import { supervisorCommand } from "./host.js"
import { listCommand, statusCommand } from "./listing.js"
import { logsCommand } from "./logs.js"
import { proxyCommand } from "./proxy.js"
import { schemaCommand } from "./schema.js"
import { settingsCommand } from "./settings.js"
import { activateCommand, cdCommand, projectCommand } from "./shell.js"
import { specCommand } from "./spec.js"
import { printUsage } from "./usageCommand.js"
import { webCommand } from "./web.js"

/** `supervisor usage`: the usage spec of this very tree (read when the command runs). */
const usageCommand = Command.make("usage", {}, (): Effect.Effect<void> => printUsage(rootCommand)).pipe(
  Command.withDescription("print the usage spec (KDL) of this CLI"),
)

/** The CLI's command tree: what @effect/cli parses, and what the usage spec is generated from. */
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
    bootCommand,
    configCommand,
    settingsCommand,
    daemonsCommand,
    exportCommand,
    proxyCommand,
    schemaCommand,
    webCommand,
    activateCommand,
    projectCommand,
    specCommand,
    usageCommand,
    completionCommand,
    completeCommand,
    cdCommand,
  ]),
)
