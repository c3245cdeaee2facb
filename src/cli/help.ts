// `--help`/`-h` on any command, and `supervisor` alone: the help rendered from the CLI's usage
// spec (src/usage/consume/helpText.ts) instead of @effect/cli's, which names the command without
// the program (`$ start`), lists the library's own options (`--wizard`, `--log-level`,
// `--completions`) and describes values generically ("A user-defined piece of text").
import { Console, Effect } from "effect"
import { VERSION } from "../domain/version.js"
import { valueFlags } from "./argvChecks.js"

/** The arguments before `--`, without the values of value flags (`--grep -h` is no help). */
const words = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === "--") break
    out.push(arg)
    if (valueFlags().has(arg)) i++
  }
  return out
}

/** Whether the arguments ask for help: none at all, or `-h`/`--help` before any `--`. */
export const wantsHelp = (args: ReadonlyArray<string>): boolean =>
  args.length === 0 || words(args).some((w) => w === "-h" || w === "--help")

/**
 * Prints the help of the deepest command the arguments name (`supervisor config show --help`:
 * `config show`). Loaded when asked for: the spec generator is not part of any other command.
 */
export const printHelp = (args: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.promise(() =>
    Promise.all([
      import("./commands.js"),
      import("./usageSpec/cliSpec.js"),
      import("../usage/consume/commands.js"),
      import("../usage/consume/helpText.js"),
    ]),
  ).pipe(
    Effect.flatMap(([{ rootCommand }, { cliSpec }, { findSubcommand }, { helpText }]) => {
      const spec = cliSpec(rootCommand, { version: VERSION })
      let command = spec.root
      for (const word of words(args)) {
        if (word.startsWith("-")) continue
        command = findSubcommand(command, word) ?? command
      }
      return Console.log(helpText(spec, command).replace(/\n$/, ""))
    }),
  )
