// `supervisor completion bash|zsh|fish` (and its older form `--completions`): the completion script generated from the CLI's own
// usage spec (src/usage/consume/completion.ts), not @effect/cli's, so that the aliases (`stat`,
// `sup run`, ...) complete like their commands and every flag is the one the help lists.
import { Console, Effect } from "effect"
import { VERSION } from "../domain/version.js"
import type { Shell } from "../usage/consume/completion.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"

/**
 * Prints the script for `shell` from the tree `root` (the caller's: this module does not import
 * the tree). Loaded when asked for: no other command needs the generator.
 */
export const printCompletions = (root: AnyCliCommand, shell: Shell): Effect.Effect<void> =>
  Effect.promise(() =>
    Promise.all([import("./usageSpec/cliSpec.js"), import("../usage/consume/completion.js")]),
  ).pipe(
    Effect.flatMap(([{ cliSpec }, { completionScript }]) =>
      Console.log(completionScript(cliSpec(root, { version: VERSION }), shell).replace(/\n$/, "")),
    ),
  )
