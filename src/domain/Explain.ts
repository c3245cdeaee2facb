// `supervisor why ID` (docs/why.md): why a daemon is not running or not ready, in plain words,
// one reason per line; a dependency it waits for is explained below it, one level deeper.
import { Schema } from "effect"

export const EXPLAIN_KINDS = [
  "ready",
  "starting",
  "check",
  "dependency",
  "never-started",
  "stopped",
  "completed",
  "exited",
  "retry",
  "limit",
  "disabled",
  "port",
  "unknown",
] as const

export const ExplainReason = Schema.Struct({
  kind: Schema.Literal(...EXPLAIN_KINDS).annotations({ description: "What kind of reason it is" }),
  id: Schema.String.annotations({
    description: "The daemon it is about (a dependency's, below its dependent)",
  }),
  depth: Schema.Int.annotations({ description: "0 for the daemon asked about, 1 for its dependencies, ..." }),
  text: Schema.String.annotations({ description: "The reason, in words" }),
  output: Schema.Array(Schema.String).annotations({
    description: "The daemon's last lines of output, where they tell more (a failed check, an exit)",
  }),
})
export type ExplainReason = typeof ExplainReason.Type

export const Explanation = Schema.Struct({
  id: Schema.String,
  status: Schema.String.annotations({ description: "Its status now (available when it never ran)" }),
  ok: Schema.Boolean.annotations({ description: "True when it runs and is ready (or completed)" }),
  reasons: Schema.Array(ExplainReason),
}).annotations({ identifier: "Explanation" })
export type Explanation = typeof Explanation.Type
