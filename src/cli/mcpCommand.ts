import type { CliApp, Command } from "@effect/cli"
import { Context, Effect, Layer } from "effect"
import { defaultLoadOptions } from "../config/Loader.js"
import { VERSION } from "../domain/version.js"
import type { Connect } from "../mcp/connection.js"
import { McpSupervisor } from "../mcp/connection.js"
import { mcpDefinition } from "../mcp/index.js"
import { SupervisorClient, supervisorClientLayer } from "./client.js"
import { cliSpec } from "./usageSpec/cliSpec.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"

/**
 * `supervisor mcp`: serves the MCP tools over stdio until stdin ends. The SDK is in its own
 * bundle (dist/mcp.cjs, the build externalises ../mcp/server.js), loaded only here.
 */
/** The CLI's root command, whose usage spec the MCP tools describe. */
export type McpRoot = Command.Command<"supervisor", CliApp.CliApp.Environment, unknown, unknown> &
  AnyCliCommand

/** The CLI's own connection to the supervisor (started in the background when it is down), for one call. */
export const mcpConnect: Connect = (autoStart) =>
  Layer.map(supervisorClientLayer({ autoStart }), (context) => {
    const client = Context.get(context, SupervisorClient)
    return Context.make(McpSupervisor, { api: client.api, http: client.http })
  })

export const mcp = (root: McpRoot): Effect.Effect<void, never, CliApp.CliApp.Environment> =>
  Effect.gen(function* () {
    const definition = yield* mcpDefinition(
      cliSpec(root, { version: VERSION }),
      mcpConnect,
      defaultLoadOptions(),
    )
    const { serveMcp } = yield* Effect.promise(() => import("../mcp/server.js"))
    yield* Effect.promise(() => serveMcp(definition))
  })
