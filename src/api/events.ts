// GET /api/events: the supervisor's event log as ndjson, or as Server-Sent Events when the client
// accepts `text/event-stream` (each event's `id:` is its seq, so an EventSource resumes with
// Last-Event-ID). docs/events.md.
import { HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Either, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { eventDaemon, type UsageSampled } from "../domain/SupervisorEvent.js"
import type { EventLogShape } from "../events/EventLog.js"
import { entryAfter, entryMessageText, messageText, SSE_OPENING, usageMessage, utf8 } from "./eventText.js"
import { liveEventsBody } from "./liveEvents.js"
import { NDJSON } from "./ndjson.js"

export const EVENT_STREAM = "text/event-stream"

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
 * Without usage samples or entries, each event is written inside its publication
 * (src/api/liveEvents.ts); with them, a fiber reads the log and looks the entries up.
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
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const sse = options.sse
  const entryOf = options.entries
  const head = {
    contentType: sse ? EVENT_STREAM : NDJSON,
    headers: { "cache-control": "no-store", connection: "close" },
  }
  if (options.usage === undefined && entryOf === undefined)
    return Effect.map(liveEventsBody(log, host, options), (body) => HttpServerResponse.raw(body, head))
  const subscribed = log.subscribe({ since: options.since, ids: options.ids })
  const events =
    entryOf === undefined
      ? subscribed.pipe(Stream.map((item) => utf8.encode(messageText(item, sse))))
      : subscribed.pipe(
          Stream.mapEffect((item) => {
            // a readiness that passed changes no entry: the change to `running` before it did
            const id = item._tag === "ReadinessPassed" ? undefined : eventDaemon(item)
            if (id === undefined) return Effect.succeed(utf8.encode(messageText(item, sse)))
            // the event and the entry after it in one chunk: one write to the client, not two
            return Effect.map(entryAfter(entryOf, item, id), (entry) =>
              utf8.encode(messageText(item, sse) + entryMessageText(entry, sse)),
            )
          }),
        )
  const items = (
    options.usage === undefined
      ? events
      : Stream.merge(
          events,
          Stream.map(options.usage, (item) => usageMessage(item, sse)),
          {
            haltStrategy: "left",
          },
        )
  ).pipe(Stream.interruptWhenDeferred(host.shutdown))
  const prelude = utf8.encode(sse ? SSE_OPENING : "")
  return Effect.succeed(HttpServerResponse.stream(Stream.prepend(items, Chunk.of(prelude)), head))
}
