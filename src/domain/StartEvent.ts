import { Schema } from "effect"
import { DependencyCondition } from "./Dependency.js"
import { StartOutcome } from "./StartOutcome.js"

/**
 * The events of a start, one JSON object per ndjson line: what the CLI's spinner and transcript
 * show while daemons start. The supervisor encodes them (src/api/startEvents.ts), the CLI
 * (src/cli/progress.ts) decodes them, and the quick client (src/quick/start.ts, which loads no
 * Effect) reads them by their type.
 */

/**
 * A daemon a start waits for, and what for, in words: `{ id: "app/web", what: "port 3001" }`.
 * Before it starts, what it waits for is its dependencies (`app/migrate to complete`), listed
 * with their conditions in `dependencies`.
 */
export const Waiting = Schema.Struct({
  id: Schema.String,
  what: Schema.String,
  dependencies: Schema.optional(
    Schema.Array(Schema.Struct({ id: Schema.String, condition: DependencyCondition })),
  ),
}).annotations({
  identifier: "Waiting",
})
export type Waiting = typeof Waiting.Type

/** Daemons whose process exists now, with what each waits for (the ports it got). */
export const WaitingEvent = Schema.Struct({ waiting: Schema.Array(Waiting) })
/** A daemon settled: ready, completed or failed. */
export const OutcomeEvent = Schema.Struct({ outcome: StartOutcome })
/** The last event: every outcome, in start order. */
export const OutcomesEvent = Schema.Struct({ outcomes: Schema.Array(StartOutcome) })
/** The quick client's start cannot be done by the supervisor: the full CLI must run it. */
export const FallbackEvent = Schema.Struct({ fallback: Schema.Literal(true) })

/** One line of `POST /api/cli/start/stream`. */
export const StartEvent = Schema.Union(WaitingEvent, OutcomeEvent, OutcomesEvent).annotations({
  identifier: "StartEvent",
})
export type StartEvent = typeof StartEvent.Type

/** What a spinner or a transcript shows: every event but the last. */
export type StartProgress = Exclude<StartEvent, { readonly outcomes: unknown }>

/** One line of `POST /api/cli/start-from` (the quick client): the same events, or `fallback` alone. */
export const StartFromEvent = Schema.Union(...StartEvent.members, FallbackEvent).annotations({
  identifier: "StartFromEvent",
})
export type StartFromEvent = typeof StartFromEvent.Type
