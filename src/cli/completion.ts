import { Args, Command } from "@effect/cli"
import { printCompletions } from "./completions.js"
import type { AnyCliCommand } from "./usageSpec/effectCli.js"

// the shells `--completions` takes too (argvChecks.ts); not imported from there, which needs this tree
const SHELLS = ["bash", "zsh", "fish"] as const

/**
 * `supervisor completion bash|zsh|fish`: the command form of `supervisor --completions SHELL`,
 * for the tree `root()` (cli/commands.ts, which holds this command).
 */
export const completionCommand = (root: () => AnyCliCommand) =>
  Command.make(
    "completion",
    {
      shell: Args.choice(
        SHELLS.map((s) => [s, s] as const),
        { name: "shell" },
      ).pipe(Args.withDescription("bash, zsh or fish")),
    },
    ({ shell }) => printCompletions(root(), shell),
  ).pipe(
    Command.withDescription(
      "print the shell completion script (daemon IDs, group names and setting keys complete too)",
    ),
  )
