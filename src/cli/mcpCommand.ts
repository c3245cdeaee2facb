import type { CliApp, Command } from "@effect/cli"
import { Effect } from "effect"
import { VERSION } from "../domain/version.js"
import { mcpDefinition } from "../mcp/index.js"
import { cliSpec } from "./usageSpec/cliSpec.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"

/**
 * `supervisor mcp`: serves the MCP tools over stdio until stdin ends. The SDK is in its own
 * bundle (dist/mcp.cjs, the build externalises ../mcp/server.js), loaded only here.
 */
/** The CLI's root command, as the MCP tools run it. */
export type McpRoot = Command.Command<"supervisor", CliApp.CliApp.Environment, unknown, unknown> &
  AnyCliCommand

export const mcp = (root: McpRoot): Effect.Effect<void, never, CliApp.CliApp.Environment> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<CliApp.CliApp.Environment>()
    const definition = yield* mcpDefinition(root, cliSpec(root, { version: VERSION }), runtime)
    const { serveMcp } = yield* Effect.promise(() => import("../mcp/server.js"))
    yield* Effect.promise(() => serveMcp(definition))
  })
