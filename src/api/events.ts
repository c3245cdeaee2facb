// GET /api/events: the supervisor's event log as ndjson, or as Server-Sent Events when the client
// accepts `text/event-stream` (each event's `id:` is its seq, so an EventSource resumes with
// Last-Event-ID). docs/events.md.
import { HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Either, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { DaemonEntry, EventStreamItem, eventDaemon, UsageSampled } from "../domain/SupervisorEvent.js"
import type { EventLogShape } from "../events/EventLog.js"
import { ndjsonLines, ndjsonResponse } from "./ndjson.js"

export const EVENT_STREAM = "text/event-stream"

const line = ndjsonLines(EventStreamItem)
const usageLine = ndjsonLines(UsageSampled)
const entryLine = ndjsonLines(DaemonEntry)
const utf8 = new TextEncoder()
const decoder = new TextDecoder()

/** One SSE message: `id:` the seq (none for a dropped marker or a sample), `event:` the type, `data:` the JSON. */
const sseOf =
  <A extends { readonly _tag: string; readonly seq?: number }>(encode: (a: A) => Uint8Array) =>
  (item: A): Uint8Array => {
    const json = decoder.decode(encode(item)).trimEnd()
    const id = item.seq === undefined ? "" : `id: ${item.seq}\n`
    return utf8.encode(`${id}event: ${item._tag}\ndata: ${json}\n\n`)
  }
const sseMessage = sseOf<EventStreamItem>(line)
const sseUsage = sseOf<UsageSampled>(usageLine)
const sseEntry = sseOf<DaemonEntry>(entryLine)

export interface EventsQuery {
  /** `?since=`; when absent, the Last-Event-ID header. */
  readonly since: string | undefined
  readonly lastEventId: string | undefined
}

/** A seq as a client gives it: a non-negative integer. */
const parseSeq = (text: string, name: string): Either.Either<number, string> => {
  const n = Number(text.trim())
  return text.trim() !== "" && Number.isSafeInteger(n) && n >= 0
    ? Either.right(n)
    : Either.left(`${name} must be an event's seq (a non-negative integer), not '${text}'`)
}

/** The query's `since`, or why it is not one. */
export const sinceOf = (q: EventsQuery): Either.Either<number | undefined, string> => {
  if (q.since !== undefined) return parseSeq(q.since, "since")
  if (q.lastEventId !== undefined && q.lastEventId !== "") return parseSeq(q.lastEventId, "Last-Event-ID")
  return Either.right(undefined)
}

/** Whether the client asked for Server-Sent Events. */
export const wantsSse = (accept: string | undefined) => accept?.includes(EVENT_STREAM) ?? false

/**
 * The event stream response, open until the client leaves or the supervisor shuts down. The
 * headers go at once (an SSE comment, or an empty ndjson chunk), also while nothing happens.
 */
export const eventsResponse = (
  log: EventLogShape,
  host: HostInfoShape,
  options: {
    readonly since: number | undefined
    readonly ids: ReadonlyArray<string>
    readonly sse: boolean
    /** The usage samples to send between the events (`?usage=true`). */
    readonly usage?: Stream.Stream<UsageSampled> | undefined
    /** A daemon's entry now, sent after each event about it (`?entries=true`); null when unknown. */
    readonly entries?: ((id: string) => Effect.Effect<ApiDaemonEntry | null>) | undefined
  },
) => {
  const encode = options.sse ? sseMessage : line
  const encodeEntry = options.sse ? sseEntry : entryLine
  const entryOf = options.entries
  const subscribed = log.subscribe({ since: options.since, ids: options.ids })
  const events =
    entryOf === undefined
      ? subscribed.pipe(Stream.map(encode))
      : subscribed.pipe(
          Stream.mapEffect((item) => {
            // a readiness that passed changes no entry: the change to `running` before it did
            const id = item._tag === "ReadinessPassed" ? undefined : eventDaemon(item)
            if (id === undefined) return Effect.succeed([encode(item)])
            return Effect.map(entryOf(id), (entry) => [
              encode(item),
              encodeEntry({ _tag: "DaemonEntry", id, entry }),
            ])
          }),
          Stream.flattenIterables,
        )
  const items = (
    options.usage === undefined
      ? events
      : Stream.merge(events, Stream.map(options.usage, options.sse ? sseUsage : usageLine), {
          haltStrategy: "left",
        })
  ).pipe(Stream.interruptWhenDeferred(host.shutdown))
  if (!options.sse)
    return ndjsonResponse(Stream.prepend(items, Chunk.of(new Uint8Array(0))), { connection: "close" })
  return HttpServerResponse.stream(Stream.prepend(items, Chunk.of(utf8.encode(": events\n\n"))), {
    contentType: EVENT_STREAM,
    headers: { "cache-control": "no-store", connection: "close" },
  })
}
