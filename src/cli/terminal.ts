import * as Terminal from "@effect/platform/Terminal"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer, Scope } from "effect"

/**
 * The terminal @effect/cli requires, made on first use: NodeTerminal opens stdin as soon as
 * it is built (~5-10 ms at every start), and only prompts (`--wizard`) ever use it.
 */
export const lazyTerminal = Layer.scoped(
  Terminal.Terminal,
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const real = yield* Effect.cached(Scope.extend(NodeTerminal.make(), scope))
    return Terminal.Terminal.of({
      columns: Effect.flatMap(real, (t) => t.columns),
      rows: Effect.flatMap(real, (t) => t.rows),
      isTTY: Effect.flatMap(real, (t) => t.isTTY),
      readInput: Effect.flatMap(real, (t) => t.readInput),
      readLine: Effect.flatMap(real, (t) => t.readLine),
      display: (text) => Effect.flatMap(real, (t) => t.display(text)),
    })
  }),
)
