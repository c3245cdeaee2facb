import { Console, Effect } from "effect"
import { VERSION } from "../domain/version.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"

/**
 * Prints the usage spec (KDL) of a command tree, generated from the @effect/cli tree and the
 * outputs table (src/cli/usageSpec/outputs.ts), so docs, completions and SDKs come from the
 * parser that runs. The generator (the KDL writer and every output schema) is imported when the
 * command runs: it would slow down the start of every other command.
 */
export const printUsage = (root: AnyCliCommand): Effect.Effect<void> =>
  Effect.promise(() => import("./usageSpec/cliSpec.js")).pipe(
    Effect.flatMap(({ cliSpecKdl }) =>
      Console.log(cliSpecKdl(root, { version: VERSION }).replace(/\n$/, "")),
    ),
  )
