// The CLI's sender of the command protocol (src/domain/Command.ts): `POST /api/commands` over the
// socket or to a supervisor at a URL, each answer decoded through the command's own success and
// failure schemas, so that a typed failure (NothingSelected, UnknownDaemon, ...) reaches the
// caller as itself.
import { HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import * as Ndjson from "@effect/platform/Ndjson"
import { Effect, Schema, Stream } from "effect"
import { Command, type StartingCommand } from "../domain/Command.js"
import { StartEvent, type StartProgress } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { SupervisorClient } from "./client.js"

const encodeCommand = Schema.encodeSync(Command)
const decodeEvent = Schema.decodeUnknownSync(StartEvent)

/** The request of a command: its JSON body, encoded through the Command union. */
export const requestOf = (command: Command) =>
  HttpClientRequest.post("http://localhost/api/commands").pipe(
    HttpClientRequest.bodyUnsafeJson(encodeCommand(command)),
  )

type Success<C extends Command> = Schema.WithResult.Success<C>
type Failure<C extends Command> = Schema.WithResult.Failure<C>

/** A command's answer that is not a stream: its success (200), or its typed failure; else a defect. */
const answerOf = <C extends Command>(command: C, response: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function* () {
    const body: unknown = yield* response.json.pipe(
      Effect.orElse(() => Effect.succeed(undefined as unknown)),
      Effect.orDie,
    )
    // each command's own result schemas (the union's members differ; the value is this one's)
    const own = command as unknown as Schema.WithResult<unknown, unknown, unknown, unknown, never>
    if (response.status === 200)
      return (yield* Schema.deserializeSuccess(own, body).pipe(Effect.orDie)) as Success<C>
    const failure = yield* Effect.either(Schema.deserializeFailure(own, body))
    if (failure._tag === "Right") return yield* Effect.fail(failure.right as Failure<C>)
    const message = typeof body === "object" && body !== null && "message" in body ? String(body.message) : ""
    return yield* Effect.dieMessage(
      `the supervisor refused the ${command._tag} command (HTTP ${response.status})${message === "" ? "" : `: ${message}`}`,
    )
  })

/** Sends `command` and answers its success, or fails with its typed failure. */
export const sendCommand = <C extends Command>(
  command: C,
): Effect.Effect<Success<C>, Failure<C>, SupervisorClient> =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const response = yield* c.http.execute(requestOf(command)).pipe(Effect.orDie)
    return yield* answerOf(command, response)
  }).pipe(Effect.scoped)

const isNdjson = (response: HttpClientResponse.HttpClientResponse) =>
  (response.headers["content-type"] ?? "").includes("ndjson")

/**
 * Sends a start with `wait: "events"`: each event but the last is given to `onProgress` as it
 * comes (the waiting list first, then what each daemon waits for once spawned and each outcome),
 * and the outcomes are answered once all are in. A start that fails before it began fails typed.
 */
export const streamCommand = <C extends StartingCommand>(
  command: C,
  onProgress: (event: StartProgress, index: number) => Effect.Effect<void>,
): Effect.Effect<ReadonlyArray<StartOutcome>, Failure<C>, SupervisorClient> =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const response = yield* c.http.execute(requestOf(command)).pipe(Effect.orDie)
    if (response.status !== 200 || !isNdjson(response))
      return (yield* answerOf(command, response)) as ReadonlyArray<StartOutcome>
    let outcomes: ReadonlyArray<StartOutcome> | undefined
    let index = 0
    yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.pipeThroughChannel(Ndjson.unpackString()),
      Stream.map(decodeEvent),
      Stream.runForEach((event) =>
        "outcomes" in event ? Effect.sync(() => (outcomes = event.outcomes)) : onProgress(event, index++),
      ),
      Effect.orDie,
    )
    if (outcomes === undefined)
      return yield* Effect.dieMessage(
        "the supervisor stopped answering before the start finished; see `supervisor list`",
      )
    return outcomes
  }).pipe(Effect.scoped)
