import { Command } from "@effect/cli"
import { worktreePruneOptions } from "./args/worktree.js"
import { lazy } from "./lazy.js"

// `supervisor worktree prune`: the projects whose directory is gone (a removed git worktree or jj
// workspace) stopped and forgotten (docs/worktrees.md).

const prune = Command.make("prune", worktreePruneOptions, (o) =>
  lazy(
    () => import("./actions/worktree.js"),
    (m) => m.prune(o),
  ),
).pipe(
  Command.withDescription(
    "stop the daemons of projects whose directory is gone (removed worktrees) and forget their namespaces",
  ),
)

export const worktreeCommand = Command.make("worktree").pipe(
  Command.withDescription("worktrees and workspaces of a project side by side (docs/worktrees.md)"),
  Command.withSubcommands([prune]),
)
