// GET /api/events: the supervisor's event log as ndjson, or as Server-Sent Events when the client
// accepts `text/event-stream` (each event's `id:` is its seq, so an EventSource resumes with
// Last-Event-ID). docs/events.md.
import { HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Either, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { jsonEncoder } from "../domain/jsonEncoding.js"
import { DaemonEntry, EventStreamItem, eventDaemon, UsageSampled } from "../domain/SupervisorEvent.js"
import type { EventLogShape } from "../events/EventLog.js"
import { ndjsonResponse } from "./ndjson.js"

export const EVENT_STREAM = "text/event-stream"

const eventJson = jsonEncoder(EventStreamItem)
const usageJson = jsonEncoder(UsageSampled)
const entryJson = jsonEncoder(DaemonEntry)
const utf8 = new TextEncoder()

/**
 * The texts of the latest items, made once for all the streams that send them: every subscriber
 * gets the same item object (and every stream of usage samples the same sample), so the event's
 * JSON, and the entry sent after it, are made by the first stream and reused by the others.
 * Bounded: streams send an item at about the same time, and the log retains 2000 events.
 */
const RECENT = 64
const recentTexts = () => {
  const texts = new Map<object, string>()
  return {
    get: (item: object) => texts.get(item),
    set: (item: object, text: string) => {
      texts.set(item, text)
      if (texts.size > RECENT) texts.delete(texts.keys().next().value as object)
    },
  }
}
const textOfItem = recentTexts()
const textOfEntryAfter = recentTexts()

const textOnce = <A extends EventStreamItem | UsageSampled>(item: A, json: (a: A) => string): string => {
  let text = textOfItem.get(item)
  if (text === undefined) {
    text = json(item)
    textOfItem.set(item, text)
  }
  return text
}
const itemText = (item: EventStreamItem) => textOnce(item, eventJson)

/** One SSE message's text: `id:` the seq (none for a dropped marker or a sample), `event:` the type, `data:` the JSON. */
const sseText = (tag: string, json: string, seq?: number): string =>
  `${seq === undefined ? "" : `id: ${seq}\n`}event: ${tag}\ndata: ${json}\n\n`
const usageMessage = (item: UsageSampled, sse: boolean): Uint8Array => {
  const json = textOnce(item, usageJson)
  return utf8.encode(sse ? sseText(item._tag, json) : `${json}\n`)
}

/** An item as one message of the stream: an ndjson line or an SSE message. */
const messageText = (item: EventStreamItem, sse: boolean): string =>
  sse ? sseText(item._tag, itemText(item), "seq" in item ? item.seq : undefined) : `${itemText(item)}\n`
const entryMessageText = (json: string, sse: boolean): string =>
  sse ? sseText("DaemonEntry", json) : `${json}\n`

/** The text of the entry sent after `item`, as the first stream to send it found it. */
const entryAfter = (
  entryOf: (id: string) => Effect.Effect<ApiDaemonEntry | null>,
  item: EventStreamItem,
  id: string,
): Effect.Effect<string> => {
  const known = textOfEntryAfter.get(item)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(entryOf(id), (entry) => {
    const text = entryJson({ _tag: "DaemonEntry", id, entry })
    textOfEntryAfter.set(item, text)
    return text
  })
}

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
  const sse = options.sse
  const entryOf = options.entries
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
  if (!options.sse)
    return ndjsonResponse(Stream.prepend(items, Chunk.of(new Uint8Array(0))), { connection: "close" })
  return HttpServerResponse.stream(Stream.prepend(items, Chunk.of(utf8.encode(": events\n\n"))), {
    contentType: EVENT_STREAM,
    headers: { "cache-control": "no-store", connection: "close" },
  })
}
