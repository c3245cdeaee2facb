// The options of `supervisor worktree prune` and their types: what the command (cli/worktree.ts)
// parses and its action (actions/worktree.ts) receives.

import { type Command, Options } from "@effect/cli"
import { json } from "../options.js"

export const worktreePruneOptions = {
  yes: Options.boolean("yes").pipe(
    Options.withAlias("y"),
    Options.withDescription("do not ask for confirmation on a terminal"),
  ),
  json,
}
export type WorktreePruneOptions = Command.Command.ParseConfig<typeof worktreePruneOptions>
