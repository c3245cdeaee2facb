// The texts of the event stream's messages (ndjson lines or Server-Sent Events), each made once
// for all the streams that send it. docs/events.md.
import { Effect } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { jsonEncoder } from "../domain/jsonEncoding.js"
import { DaemonEntry, EventStreamItem, UsageSampled } from "../domain/SupervisorEvent.js"

const eventJson = jsonEncoder(EventStreamItem)
const usageJson = jsonEncoder(UsageSampled)
const entryJson = jsonEncoder(DaemonEntry)
export const utf8 = new TextEncoder()

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

/** What a Server-Sent Events stream opens with (a comment): its headers go at once. */
export const SSE_OPENING = ": events\n\n"

/** One SSE message's text: `id:` the seq (none for a dropped marker or a sample), `event:` the type, `data:` the JSON. */
const sseText = (tag: string, json: string, seq?: number): string =>
  `${seq === undefined ? "" : `id: ${seq}\n`}event: ${tag}\ndata: ${json}\n\n`
export const usageMessage = (item: UsageSampled, sse: boolean): Uint8Array => {
  const json = textOnce(item, usageJson)
  return utf8.encode(sse ? sseText(item._tag, json) : `${json}\n`)
}

/** An item as one message of the stream: an ndjson line or an SSE message. */
export const messageText = (item: EventStreamItem, sse: boolean): string =>
  sse ? sseText(item._tag, itemText(item), "seq" in item ? item.seq : undefined) : `${itemText(item)}\n`
export const entryMessageText = (json: string, sse: boolean): string =>
  sse ? sseText("DaemonEntry", json) : `${json}\n`

/** The text of the entry sent after `item`, as the first stream to send it found it. */
export const entryAfter = (
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
