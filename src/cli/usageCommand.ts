import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { VERSION } from "../version.js"

/**
 * `supervisor usage`: the usage spec (KDL) of this CLI, generated from the @effect/cli command
 * tree and the outputs table (src/usage/cli/outputs.ts), so docs, completions and SDKs come from
 * the parser that runs.
 *
 * Both are imported when the command runs: `main.ts` imports this file to list the command, so
 * a static import of the tree would be a cycle at load time, and the generator (with the KDL
 * writer and every output schema) would slow down the start of every other command. The
 * explicit return type breaks the type-level cycle (the tree's type includes this command's).
 */
const printUsage = (): Effect.Effect<void> =>
  Effect.promise(() => Promise.all([import("./main.js"), import("../usage/cli/cliSpec.js")])).pipe(
    Effect.flatMap(([{ rootCommand }, { cliSpecKdl }]) =>
      Console.log(cliSpecKdl(rootCommand, { version: VERSION }).replace(/\n$/, "")),
    ),
  )

export const usageCommand = Command.make("usage", {}, printUsage).pipe(
  Command.withDescription("print the usage spec (KDL) of this CLI"),
)
