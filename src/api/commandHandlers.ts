// `POST /api/commands`: decodes the command, hands it to `Control.handle`, and answers its
// encoded success (200) or failure (the status of its tag: src/domain/CommandErrors.ts); a start
// with `wait: "events"` answers its progress as ndjson instead, and a tail (or a logs query with
// `stream`) its lines.
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Either, Exit, Fiber, ParseResult, Queue, Schema, Stream } from "effect"
import type { ControlShape } from "../control/Control.js"
import { Control } from "../control/Control.js"
import {
  COMMAND_TAGS,
  Command,
  isLogStream,
  isStreamed,
  type LogStreamCommand,
  type StartingCommand,
} from "../domain/Command.js"
import { type CommandError, commandErrorStatus } from "../domain/CommandErrors.js"
import { HostInfo, type HostInfoShape } from "../domain/HostInfo.js"
import { StartEvent } from "../domain/StartEvent.js"
import { VERSION_HEADER } from "../domain/version.js"
import { Api } from "./Api.js"
import { logProgress, logResponse } from "./logCommands.js"
import { ndjsonLines, ndjsonResponse } from "./ndjson.js"
import { problem } from "./problem.js"

const eventLine = ndjsonLines(StartEvent)
const byTag = new Map(Command.members.map((m) => [m._tag as string, m as Schema.Schema.AnyNoContext]))

/** A command from a JSON value, or why it is none, in one message. */
export const decodeCommand = (body: unknown): Either.Either<Command, string> => {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return Either.left(`a command is a JSON object with a "_tag": one of ${COMMAND_TAGS.join(", ")}`)
  const tag = (body as { _tag?: unknown })._tag
  const member = typeof tag === "string" ? byTag.get(tag) : undefined
  if (member === undefined)
    return Either.left(
      `${tag === undefined ? "no _tag" : `unknown command ${JSON.stringify(tag)}`}; _tag is one of ${COMMAND_TAGS.join(", ")}`,
    )
  const decoded = Schema.decodeUnknownEither(member, { errors: "all", onExcessProperty: "error" })(body)
  if (Either.isRight(decoded)) return Either.right(decoded.right as Command)
  const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const i of issues) {
    const where = i.path.length === 0 ? "" : `${i.path.join(".")}: `
    if (seen.has(where)) continue
    seen.add(where)
    lines.push(`${where}${i.message}`)
  }
  return Either.left(`bad ${tag} command: ${lines.join("; ")}`)
}

const json = (status: number, body: unknown) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

/** The response of a command that ended: its success, its typed failure; a defect stays one. */
const answer = (command: Command, exit: Exit.Exit<unknown, unknown>) =>
  Effect.gen(function* () {
    // each command's own result schemas (the union's members differ; the value is this one's)
    const own = command as unknown as Schema.WithResult<unknown, unknown, unknown, unknown, never>
    if (Exit.isSuccess(exit)) return json(200, yield* Schema.serializeSuccess(own, exit.value))
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "None") return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
    const error = failure.value as CommandError
    return json(commandErrorStatus(error), yield* Schema.serializeFailure(own, error))
  }).pipe(Effect.orDie)

/**
 * A start with `wait: "events"`, once planned: Right with its events (the waiting list first,
 * every outcome last), or Left with how it ended before it started (a typed failure). A client
 * that leaves the stream interrupts the start, as it would interrupt a plain start request.
 */
export const startProgress = (control: ControlShape, command: StartingCommand) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<StartEvent | null>()
    const fiber = yield* Effect.forkDaemon(
      Effect.exit(control.handle(command, (e) => Queue.offer(queue, e))).pipe(
        Effect.tap((exit) => Queue.offer(queue, Exit.isSuccess(exit) ? { outcomes: exit.value } : null)),
      ),
    )
    const first = yield* Queue.take(queue).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
    if (first === null || "outcomes" in first)
      return Either.left<Exit.Exit<unknown, unknown>>(yield* Fiber.join(fiber))
    return Either.right(
      Stream.concat(Stream.succeed(first), Stream.fromQueue(queue)).pipe(
        Stream.takeWhile((e): e is StartEvent => e !== null),
        Stream.takeUntil((e) => "outcomes" in e),
        Stream.ensuring(Fiber.interrupt(fiber)),
      ),
    )
  })

/** The ndjson response of a start's events. */
export const startEventsResponse = (events: Stream.Stream<StartEvent>) =>
  ndjsonResponse(events.pipe(Stream.map(eventLine)), { connection: "close" })

const streamed = (control: ControlShape, command: StartingCommand) =>
  Effect.flatMap(startProgress(control, command), (started) =>
    Either.isLeft(started)
      ? answer(command, started.left)
      : Effect.succeed(startEventsResponse(started.right)),
  )

/** A log command's lines as ndjson, or its failure before they began. */
export const logStreamed = (control: ControlShape, command: LogStreamCommand, host: HostInfoShape) =>
  Effect.flatMap(logProgress(control, command), (opened) =>
    Either.isLeft(opened)
      ? answer(command, opened.left)
      : Effect.succeed(logResponse(command, opened.right, host)),
  )

/** Handles a command given as a JSON value (the endpoint's body, or an alias's). */
export const handleJson = (control: ControlShape, body: unknown, host: HostInfoShape) =>
  Effect.gen(function* () {
    const decoded = decodeCommand(body)
    if (Either.isLeft(decoded)) return problem(400, "BadCommand", decoded.left)
    const command = decoded.right
    if (isStreamed(command)) return yield* streamed(control, command)
    if (isLogStream(command)) return yield* logStreamed(control, command, host)
    return yield* answer(command, yield* Effect.exit(control.handle(command)))
  })

export const CommandsLive = HttpApiBuilder.group(Api, "commands", (h) =>
  Effect.gen(function* () {
    const control = yield* Control
    const host = yield* HostInfo
    return h.handleRaw("handle", ({ request }) =>
      Effect.gen(function* () {
        // a sender that must not act on a supervisor of another version says which it is
        const expected = request.headers[VERSION_HEADER]
        if (expected !== undefined && expected !== host.version)
          return problem(
            409,
            "VersionMismatch",
            `the running supervisor is version ${host.version} but the sender is ${expected}`,
          )
        const body = yield* Effect.either(request.json)
        if (Either.isLeft(body))
          return problem(400, "BadCommand", "the body is not JSON: send a command object")
        return yield* handleJson(control, body.right, host)
      }),
    )
  }),
)
