import { type CliApp, Command } from "@effect/cli"
import type { Effect } from "effect"
import { runCommand, waitCommand } from "./adhoc.js"
import { attachCommand } from "./attach.js"
import { bootCommand } from "./boot.js"
import { cleanCommand } from "./clean.js"
import { completeCommand } from "./complete.js"
import { completionCommand } from "./completion.js"
import { configCommand } from "./config.js"
import { disableCommand, enableCommand, restartCommand, startCommand, stopCommand } from "./daemons.js"
import { daemonsCommand } from "./daemonsEdit.js"
import { eventsCommand } from "./events.js"
import { exportCommand } from "./export.js"
import { graphCommand } from "./graph.js"
import { supervisorCommand } from "./host.js"
import { importCommand } from "./import.js"
import { lazy } from "./lazy.js"
import { listCommand, statusCommand } from "./listing.js"
import { logsCommand } from "./logs.js"
import type { McpRoot } from "./mcpCommand.js"
import { proxyCommand } from "./proxy.js"
import { scaleCommand } from "./scale.js"
import { schemaCommand } from "./schema.js"
import { sendCommand } from "./send.js"
import { settingsCommand } from "./settings.js"
import { activateCommand, cdCommand, projectCommand } from "./shell.js"
import { specCommand } from "./spec.js"
import { tuiCommand } from "./tui.js"
import { ciCommands } from "./up.js"
import { printUsage } from "./usageCommand.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"
import { webCommand } from "./web.js"
import { whyCommand } from "./why.js"
import { worktreeCommand } from "./worktree.js"

/** `supervisor usage`: the usage spec of this very tree (read when the command runs). */
const usageCommand = Command.make("usage", {}, (): Effect.Effect<void> => printUsage(rootCommand)).pipe(
  Command.withDescription("print the usage spec (KDL) of this CLI"),
)

/** `supervisor mcp`: an MCP server over stdio, a client of the API; its tools describe this tree (docs/mcp.md). */
const mcpCommand = Command.make(
  "mcp",
  {},
  (): Effect.Effect<void, never, CliApp.CliApp.Environment> =>
    lazy(
      () => import("./mcpCommand.js"),
      (m) => m.mcp(rootCommand as McpRoot),
    ),
).pipe(Command.withDescription("serve the Model Context Protocol over stdio, for coding agents"))

/** The CLI's command tree: what @effect/cli parses, and what the usage spec is generated from. */
export const rootCommand = Command.make("supervisor").pipe(
  Command.withDescription("a daemon supervisor for developers"),
  Command.withSubcommands([
    startCommand,
    stopCommand,
    restartCommand,
    ...ciCommands,
    enableCommand,
    disableCommand,
    scaleCommand,
    sendCommand,
    statusCommand,
    listCommand,
    graphCommand,
    whyCommand,
    logsCommand,
    attachCommand,
    eventsCommand,
    runCommand,
    waitCommand,
    cleanCommand,
    supervisorCommand,
    bootCommand,
    configCommand,
    settingsCommand,
    daemonsCommand,
    importCommand,
    exportCommand,
    proxyCommand,
    worktreeCommand,
    schemaCommand,
    webCommand,
    tuiCommand,
    activateCommand,
    projectCommand,
    specCommand,
    usageCommand,
    mcpCommand,
    completionCommand((): AnyCliCommand => rootCommand),
    completeCommand,
    cdCommand,
  ]),
)
