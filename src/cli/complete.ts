import { Args, Command } from "@effect/cli"
import { COMPLETE_KINDS } from "./args/complete.js"
import { lazy } from "./lazy.js"

/** The hidden command's name: never listed, nor suggested for a typo (src/cli/unknownWords.ts). */
export const COMPLETE_COMMAND = "complete"

/**
 * `supervisor complete daemons|groups|settings`: hidden, for the completion scripts (the usage
 * spec's `complete` nodes run it). Never starts the supervisor, never prints an error.
 */
export const completeCommand = Command.make(
  COMPLETE_COMMAND,
  {
    kind: Args.choice(COMPLETE_KINDS.map((k) => [k, k] as const)).pipe(
      Args.withDescription("daemons, groups or settings"),
    ),
  },
  ({ kind }) =>
    lazy(
      () => import("./actions/complete.js"),
      (m) => m.complete(kind),
    ),
).pipe(
  Command.withDescription(
    "print the words a shell completes, one a line: daemon IDs, group names or setting keys (for the completion scripts)",
  ),
)
