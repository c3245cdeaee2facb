import { HttpClientRequest } from "@effect/platform"
import { Console, Effect, Schema, Stream } from "effect"
import { StartRequest } from "../api/Api.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import { waitingList } from "../control/waiting.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { StartEvent, type StartProgress, type Waiting } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { startSpinner } from "../terminal/spinner.js"
import { outcomeReportLine, waitingLine } from "../terminal/startText.js"
import { SupervisorClient } from "./client.js"
import { ndjsonItems } from "./ndjson.js"

const decodeEvent = Schema.decodeUnknownSync(StartEvent)

/**
 * Sends the start as a stream of the supervisor's events (`POST /api/cli/start/stream`): what
 * each daemon waits for once it is spawned (with the ports it got), then its outcome as soon as
 * it is settled, each given to `onProgress`. The outcomes, once all are in.
 */
const streamStart = (
  payload: typeof StartRequest.Type,
  onProgress: (event: StartProgress) => Effect.Effect<void>,
) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const request = yield* HttpClientRequest.post("http://localhost/api/cli/start/stream").pipe(
      HttpClientRequest.schemaBodyJson(StartRequest)(payload),
      Effect.orDie,
    )
    let outcomes: ReadonlyArray<StartOutcome> | undefined
    yield* ndjsonItems(c, request).pipe(
      Stream.map(decodeEvent),
      Stream.runForEach((event) =>
        "outcomes" in event ? Effect.sync(() => (outcomes = event.outcomes)) : onProgress(event),
      ),
      Effect.orDie,
    )
    if (outcomes === undefined)
      return yield* Effect.dieMessage(
        "the supervisor stopped answering before the start finished; see `supervisor list`",
      )
    return outcomes
  })

/** A start as a transcript on stdout (stderr is not a terminal): each event a line. */
const transcript = (payload: typeof StartRequest.Type) =>
  streamStart(payload, (event) => {
    if ("waiting" in event) return Effect.forEach(event.waiting, (w) => Console.log(waitingLine(w)))
    const line = outcomeReportLine(event.outcome)
    return (line.stream === "stderr" ? Console.error : Console.log)(line.text)
  })

/**
 * A start on a terminal (stderr): the spinner (spinner.ts), with the CLI's view of what each
 * daemon waits for first, then the supervisor's events; erased before the outcome lines.
 */
const withSpinner = (waiting: ReadonlyArray<Waiting>, payload: typeof StartRequest.Type) =>
  Effect.acquireUseRelease(
    Effect.sync(() => startSpinner(waiting)),
    (spinner) => streamStart(payload, (event) => Effect.sync(() => spinner.update(event))),
    (spinner) => Effect.sync(() => spinner.stop()),
  )

/**
 * Sends the start request, with progress unless the output must stay machine-readable or quiet.
 * `printed`: the outcome lines are printed already (a transcript), only the rest of the report
 * is left.
 */
export const startWithProgress = (
  defs: ReadonlyArray<DaemonDefinition>,
  options: { readonly force: boolean; readonly json: boolean; readonly quiet: boolean },
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
): Effect.Effect<
  { readonly outcomes: ReadonlyArray<StartOutcome>; readonly printed: boolean },
  never,
  SupervisorClient
> =>
  Effect.gen(function* () {
    const dependencies = dependencyClosure(defs, configDefinitions(config))
    const payload = { definitions: defs, dependencies, force: options.force }
    const c = yield* SupervisorClient
    const request = c.api.cli.start({ payload }).pipe(Effect.orDie)
    if (options.json || options.quiet) return { outcomes: yield* request, printed: false }
    if (process.stderr.isTTY !== true) return { outcomes: yield* transcript(payload), printed: true }
    const disabled = yield* c.api.cli.disabled().pipe(Effect.orDie)
    const waiting = waitingList(defs, dependencies, options.force, config, known, disabled.ids)
    if (waiting.length === 0) return { outcomes: yield* request, printed: false }
    return { outcomes: yield* withSpinner(waiting, payload), printed: false }
  })
