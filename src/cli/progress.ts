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

/**
 * A start as a transcript on stdout (stderr is not a terminal), from the supervisor's events
 * (`POST /api/cli/start/stream`): what each daemon waits for once it is spawned (with the ports
 * it got), then its outcome line as soon as it is settled. The outcomes, once all are in.
 */
const transcript = (payload: typeof StartRequest.Type) =>
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
      Stream.runForEach((event) => {
        if ("outcomes" in event) return Effect.sync(() => (outcomes = event.outcomes))
        if ("waiting" in event) return Effect.forEach(event.waiting, (w) => Console.log(waitingLine(w)))
        const line = outcomeReportLine(event.outcome)
        return (line.stream === "stderr" ? Console.error : Console.log)(line.text)
      }),
      Effect.orDie,
    )
    if (outcomes === undefined)
      return yield* Effect.dieMessage(
        "the supervisor stopped answering before the start finished; see `supervisor list`",
      )
    return outcomes
  })

const decodeEvent = Schema.decodeUnknownSync(
  Schema.Union(
    Schema.Struct({ waiting: Schema.Array(Schema.Struct({ id: Schema.String, what: Schema.String })) }),
    Schema.Struct({ outcome: StartOutcome }),
    Schema.Struct({ outcomes: Schema.Array(StartOutcome) }),
  ),
)

/**
 * Progress while a start request waits for readiness, on a terminal (stderr): a spinner line
 * per daemon naming what it waits for, ticked off as the supervisor reports it running (polled),
 * erased before the outcome lines.
 */
const withSpinner = <A, E, R>(waiting: ReadonlyArray<Waiting>, run: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    if (waiting.length === 0) return yield* run
    const c = yield* SupervisorClient
    const done = new Set<string>()
    let drawn = 0
    let frame = 0
    const width = () => Math.max(20, (process.stderr.columns || 80) - 1)
    const clip = (s: string) => (s.length > width() ? `${s.slice(0, width() - 1)}…` : s)
    const draw = Effect.sync(() => {
      let out = drawn > 0 ? `\x1b[${drawn}A` : ""
      for (const w of waiting) {
        const line = done.has(w.id)
          ? `✓ ${w.id} ready`
          : `${SPINNER[frame % SPINNER.length]} ${w.id} waiting for ${w.what}`
        out += `\r\x1b[2K${clip(line)}\n`
      }
      frame++
      drawn = waiting.length
      process.stderr.write(out)
    })
    const erase = Effect.sync(() => {
      if (drawn > 0) process.stderr.write(`\x1b[${drawn}A\x1b[0J`)
      drawn = 0
    })
    const poll = c.api.daemons.list().pipe(
      Effect.tap((entries) =>
        Effect.sync(() => {
          for (const e of entries) if (e.status.type === "running") done.add(e.id.qualified)
        }),
      ),
      Effect.ignore,
    )
    const spinner = yield* Effect.fork(Effect.repeat(draw, Schedule.spaced("80 millis")))
    const poller = yield* Effect.fork(
      Effect.sleep("300 millis").pipe(Effect.zipRight(Effect.repeat(poll, Schedule.spaced("300 millis")))),
    )
    return yield* run.pipe(
      Effect.ensuring(
        Fiber.interrupt(spinner).pipe(Effect.zipRight(Fiber.interrupt(poller)), Effect.zipRight(erase)),
      ),
    )
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
    return { outcomes: yield* withSpinner(waiting, request), printed: false }
  })
