// The log commands answered as streams on `POST /api/commands` and their aliases: a `Tail`, and
// a `Logs` with `stream`. The command is handled by `Control.handle`; its lines come through the
// sink and are written as ndjson once the selection is made. A failure before that (an unknown
// daemon, a bad filter) is answered as the command's typed failure.
import { Effect, Either, type Exit, Fiber, Option, Queue, Stream } from "effect"
import type { ControlShape } from "../control/Control.js"
import type { LogEvent } from "../control/reads.js"
import type { LogStreamCommand } from "../domain/Command.js"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { LogEntry, type LogStreamItem } from "../domain/LogEntry.js"
import { ndjsonChunk, ndjsonResponse } from "./ndjson.js"
import { ndjsonStream } from "./respond.js"

const logChunk = ndjsonChunk(LogEntry)

/**
 * A log command once its selection is made: Right with its lines (chunks, as read), or Left with
 * how it ended before (its typed failure). A client that leaves the stream ends the command.
 */
export const logProgress = (control: ControlShape, command: LogStreamCommand) =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<LogEvent | null>()
    const fiber = yield* Effect.forkDaemon(
      Effect.exit(control.handle(command, (e) => Queue.offer(queue, e))).pipe(
        Effect.tap(() => Queue.offer(queue, null)),
      ),
    )
    const first = yield* Queue.take(queue).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))
    if (first === null || first._tag !== "Opened")
      return Either.left<Exit.Exit<unknown, unknown>>(yield* Fiber.join(fiber))
    return Either.right(
      Stream.fromQueue(queue).pipe(
        Stream.takeWhile((e): e is LogEvent => e !== null),
        Stream.filterMap((e) => (e._tag === "Items" ? Option.some(e.items) : Option.none())),
        Stream.ensuring(Fiber.interrupt(fiber)),
      ),
    )
  })

/**
 * The ndjson response of a log command's lines: a tail's LogStreamItems (open-ended: the headers
 * at once, until the client leaves or the supervisor shuts down), a query's LogEntries.
 */
export const logResponse = (
  command: LogStreamCommand,
  lines: Stream.Stream<ReadonlyArray<LogStreamItem>>,
  host: HostInfoShape,
) =>
  command._tag === "Tail"
    ? ndjsonStream(lines.pipe(Stream.flatMap((items) => Stream.fromIterable(items))), host)
    : ndjsonResponse(lines.pipe(Stream.map((items) => logChunk(items as ReadonlyArray<LogEntry>))))
