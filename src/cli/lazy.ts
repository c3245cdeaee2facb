import { Effect } from "effect"

/**
 * Runs `f` on a module loaded when the command runs, not when the CLI starts: the bundle
 * evaluates a command's code (and what only it needs: the API client, schemas, streams)
 * on first use, so every command pays only for itself (docs/benchmarks.md, CLI start-up).
 */
export const lazy = <M, A, E, R>(load: () => Promise<M>, f: (m: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.promise(() => load()),
    f,
  )
