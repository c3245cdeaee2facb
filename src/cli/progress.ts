import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import * as Ndjson from "@effect/platform/Ndjson"
import { Console, Effect, Fiber, Schedule, Schema, Stream } from "effect"
import { StartRequest } from "../api/Api.js"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { StartOutcome } from "../domain/StartOutcome.js"
import { SupervisorClient } from "./client.js"
import { outcomeReportLine, type Waiting, waitingLine } from "./startText.js"
import { waitingList } from "./waiting.js"

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

type StartEvent = ReturnType<typeof decodeEvent>
type Progress = Exclude<StartEvent, { readonly outcomes: unknown }>

const decodeEvent = Schema.decodeUnknownSync(
  Schema.Union(
    Schema.Struct({ waiting: Schema.Array(Schema.Struct({ id: Schema.String, what: Schema.String })) }),
    Schema.Struct({ outcome: StartOutcome }),
    Schema.Struct({ outcomes: Schema.Array(StartOutcome) }),
  ),
)

/**
 * Sends the start as a stream of the supervisor's events (`POST /api/cli/start/stream`): what
 * each daemon waits for once it is spawned (with the ports it got), then its outcome as soon as
 * it is settled, each given to `onProgress`. The outcomes, once all are in.
 */
const streamStart = (
  payload: typeof StartRequest.Type,
  onProgress: (event: Progress) => Effect.Effect<void>,
) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const request = yield* HttpClientRequest.post("http://localhost/api/cli/start/stream").pipe(
      HttpClientRequest.schemaBodyJson(StartRequest)(payload),
      Effect.orDie,
    )
    let outcomes: ReadonlyArray<StartOutcome> | undefined
    yield* HttpClientResponse.stream(c.http.execute(request)).pipe(
      Stream.pipeThroughChannel(Ndjson.unpack()),
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

const SETTLED_WELL = new Set(["Ready", "AlreadyRunning", "Completed"])

/**
 * A start on a terminal (stderr): a spinner line per daemon naming what it waits for (from the
 * CLI's view first, then as the supervisor tells it once the daemon is spawned), ticked off as
 * each is settled, erased before the outcome lines.
 */
const withSpinner = (waiting: ReadonlyArray<Waiting>, payload: typeof StartRequest.Type) =>
  Effect.gen(function* () {
    const lines = new Map<string, { what: string; mark?: string }>(
      waiting.map((w) => [w.id, { what: w.what }]),
    )
    let drawn = 0
    let frame = 0
    const width = () => Math.max(20, (process.stderr.columns || 80) - 1)
    const clip = (s: string) => (s.length > width() ? `${s.slice(0, width() - 1)}…` : s)
    const draw = Effect.sync(() => {
      let out = drawn > 0 ? `\x1b[${drawn}A` : ""
      for (const [id, l] of lines) {
        const line = l.mark ?? `${SPINNER[frame % SPINNER.length]} ${id} waiting for ${l.what}`
        out += `\r\x1b[2K${clip(line)}\n`
      }
      frame++
      drawn = lines.size
      process.stderr.write(out)
    })
    const erase = Effect.sync(() => {
      if (drawn > 0) process.stderr.write(`\x1b[${drawn}A\x1b[0J`)
      drawn = 0
    })
    const spinner = yield* Effect.fork(Effect.repeat(draw, Schedule.spaced("80 millis")))
    return yield* streamStart(payload, (event) =>
      Effect.sync(() => {
        if ("waiting" in event) for (const w of event.waiting) lines.set(w.id, { what: w.what })
        else {
          const o = event.outcome
          const known = lines.get(o.id)
          if (known !== undefined)
            known.mark = SETTLED_WELL.has(o._tag) ? `✓ ${o.id} ready` : `✗ ${o.id} did not start`
        }
      }),
    ).pipe(Effect.ensuring(Fiber.interrupt(spinner).pipe(Effect.zipRight(erase))))
  })

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
