// `supervisor completion bash|zsh|fish` (and its older form `--completions`): the completion script generated from the CLI's own
// usage spec (src/usage/consume/completion.ts), not @effect/cli's, so that the aliases (`stat`,
// `sup run`, ...) complete like their commands and every flag is the one the help lists.
import { Console, Effect } from "effect"
import { VERSION } from "../domain/version.js"
import type { Shell } from "../usage/consume/completion.js"

/** Prints the script for `shell`. Loaded when asked for: no other command needs the generator. */
export const printCompletions = (shell: Shell): Effect.Effect<void> =>
  Effect.promise(() =>
    Promise.all([
      import("./commands.js"),
      import("./usageSpec/cliSpec.js"),
      import("../usage/consume/completion.js"),
    ]),
  ).pipe(
    Effect.flatMap(([{ rootCommand }, { cliSpec }, { completionScript }]) =>
      Console.log(completionScript(cliSpec(rootCommand, { version: VERSION }), shell).replace(/\n$/, "")),
    ),
  )
