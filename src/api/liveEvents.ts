// The event stream without usage samples or entries (a script's, the CLI's `events`): each event
// is handed to the response's socket inside its publication, with no fiber between, so its
// latency does not wait for whatever else the supervisor does meanwhile (docs/events.md). Not a
// PubSub read by a fiber: that missed the latency target (docs/benchmarks.md, Custom primitives).
// A stream with samples or entries goes through src/api/events.ts.
import { Readable } from "node:stream"
import { Deferred, Effect, Fiber } from "effect"
import type { HostInfoShape } from "../domain/HostInfo.js"
import type { EventStreamItem } from "../domain/SupervisorEvent.js"
import { type EventLogShape, forDaemons } from "../events/EventLog.js"
import { messageText, SSE_OPENING, utf8 } from "./eventText.js"

export interface LiveOptions {
  readonly since: number | undefined
  readonly ids: ReadonlyArray<string>
  readonly sse: boolean
}

/** Messages held for a reader before it falls behind and is caught up from the log's ring. */
const HELD = 16

/**
 * The body's readable. Piped into a Node response, it sends an empty chunk first: the headers go
 * at once, also while nothing happens. (A web `Response` made of it, as in tests, would wait
 * forever on an empty chunk, so none is pushed there.)
 */
class LiveBody extends Readable {
  ended = false
  override push(chunk: unknown): boolean {
    if (this.ended) return false
    if (chunk === null) this.ended = true
    return super.push(chunk)
  }
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    const piped = super.pipe(destination, options)
    this.push(new Uint8Array(0))
    return piped
  }
}

/**
 * The stream's body: a readable that the event log's listener pushes into, after an SSE comment
 * in Server-Sent Events. It listens from its first read on (a body never read, as for a HEAD
 * request, costs nothing), first replaying what came since the request. A reader that does not
 * keep up stops being pushed to once HELD messages wait; when it reads again, what it missed is
 * taken from the retained events, and what is no longer retained becomes one `EventsDropped`
 * marker, as for every reader (so nothing grows while it does not read). Ends at the
 * supervisor's shutdown; stops listening when the client leaves.
 */
export const liveEventsBody = (log: EventLogShape, host: HostInfoShape, options: LiveOptions) =>
  Effect.map(log.lastSeq, (last) => {
    const shows = forDaemons(options.ids)
    const bytes = (item: EventStreamItem) => utf8.encode(messageText(item, options.sse))
    // the last seq handed on (or passed over by the filter); behind: waiting to read again
    let seen = options.since === undefined ? last : Math.max(0, Math.min(options.since, last))
    let behind = true
    let listening: { readonly stop: () => void } | undefined
    let shutdown: Fiber.RuntimeFiber<void> | undefined
    const body = new LiveBody({
      objectMode: true, // an empty chunk is one too: it sends the headers
      highWaterMark: HELD,
      read: () => {
        if (listening === undefined) listen()
        catchUp()
      },
      destroy: (error, done) => {
        listening?.stop()
        if (shutdown !== undefined) Effect.runFork(Fiber.interrupt(shutdown))
        done(error)
      },
    })
    /** The retained events after `seen`, pushed until the reader holds enough. */
    const catchUp = () => {
      if (!behind || body.destroyed) return
      behind = false
      for (const item of log.retainedAfter(seen)) {
        seen = item._tag === "EventsDropped" ? item.last : item.seq
        if (shows(item) && !body.push(bytes(item))) {
          behind = true
          return
        }
      }
    }
    const listen = () => {
      const live = log.listen((event) => {
        if (behind || event.seq <= seen) return
        seen = event.seq
        if (shows(event) && !body.push(bytes(event))) behind = true
      })
      listening = live
      if (options.sse) body.push(utf8.encode(SSE_OPENING))
      shutdown = Effect.runFork(
        Effect.andThen(
          Deferred.await(host.shutdown),
          Effect.sync(() => {
            live.stop()
            body.push(null)
          }),
        ),
      )
    }
    return body
  })
