import { Context, Effect, Layer, PubSub, type Scope, Stream } from "effect"
import {
  type EventBody,
  type EventStreamItem,
  type EventsDropped,
  eventDaemon,
  type SupervisorEvent,
} from "../domain/SupervisorEvent.js"

export interface EventLogOptions {
  /** How many of the latest events are kept for `since` (default 2000). */
  readonly retain?: number
  /**
   * How many published events a reader may lag behind before it loses the oldest (default 512, or `retain` when smaller):
   * the one buffer all readers share, so a reader that reads nothing holds no more than this.
   * At most `retain` by default: what a reader lost from it is taken from the retained events.
   */
  readonly readerBuffer?: number
}

export interface SubscribeOptions {
  /** Replay the retained events after this seq first (none: only what is published from now). */
  readonly since?: number | undefined
  /** Only the events of these daemons (qualified IDs), and the supervisor's own. */
  readonly ids?: ReadonlyArray<string> | undefined
}

export interface EventLogShape {
  /** Publishes an event: it gets the next `seq` and the time now. */
  readonly publish: (event: EventBody) => Effect.Effect<void>
  /**
   * The retained events after `since`, then each new one, until the stream is interrupted. A gap
   * (events older than the retained ones, or that came faster than the reader read and are no
   * longer retained) is said by one `EventsDropped` item before the next event.
   */
  readonly subscribe: (options?: SubscribeOptions) => Stream.Stream<EventStreamItem>
  /** The same, subscribed at once (in the caller's scope) rather than when the stream starts. */
  readonly open: (
    options?: SubscribeOptions,
  ) => Effect.Effect<Stream.Stream<EventStreamItem>, never, Scope.Scope>
  /** The seq of the latest event (0 before the first). */
  readonly lastSeq: Effect.Effect<number>
  /**
   * Calls `listener` with each event as it is published, synchronously and in seq order, until
   * the returned `stop`: for a writer that must not wait for a fiber between the publication and
   * its socket (src/api/liveEvents.ts). `last` is the latest seq when it began to listen.
   */
  readonly listen: (listener: (event: SupervisorEvent) => void) => {
    readonly last: number
    readonly stop: () => void
  }
  /** The retained events after `after`, now; a marker first for those no longer retained. */
  readonly retainedAfter: (after: number) => ReadonlyArray<EventStreamItem>
}

export class EventLog extends Context.Tag("supervisor/EventLog")<EventLog, EventLogShape>() {}

/**
 * Whether an item is for a reader of these daemons (qualified IDs): theirs and the supervisor's
 * own; every item when there are none.
 */
export const forDaemons = (ids: ReadonlyArray<string> | undefined): ((item: EventStreamItem) => boolean) => {
  if (ids === undefined || ids.length === 0) return () => true
  const wanted = new Set(ids)
  return (item) => {
    const id = eventDaemon(item)
    return id === undefined || wanted.has(id)
  }
}

const dropped = (first: number, last: number): EventsDropped => ({
  _tag: "EventsDropped",
  first,
  last,
  count: last - first + 1,
})

/** The event log: a ring of the latest events, and one sliding buffer that live readers share. */
export const makeEventLog = (options: EventLogOptions = {}) =>
  Effect.gen(function* () {
    const retain = Math.max(1, options.retain ?? 2000)
    const ring: Array<SupervisorEvent | undefined> = new Array(retain)
    let last = 0
    const live = yield* Effect.acquireRelease(
      PubSub.sliding<SupervisorEvent>(Math.max(1, options.readerBuffer ?? Math.min(512, retain))),
      PubSub.shutdown,
    )
    const listeners = new Set<(event: SupervisorEvent) => void>()

    /** The retained event `seq`, if it still is. */
    const retained = (seq: number): SupervisorEvent | undefined => {
      if (seq < 1 || seq > last || seq <= last - retain) return undefined
      return ring[(seq - 1) % retain]
    }
    /** The retained events after `after` up to `upTo`, and a marker first for those not retained. */
    const catchUp = (after: number, upTo: number): Array<EventStreamItem> => {
      const out: Array<EventStreamItem> = []
      const oldest = Math.max(1, last - retain + 1)
      if (after + 1 < oldest && after < upTo) out.push(dropped(after + 1, Math.min(oldest - 1, upTo)))
      for (let seq = Math.max(after + 1, oldest); seq <= upTo; seq++) {
        const e = retained(seq)
        if (e !== undefined) out.push(e)
      }
      return out
    }

    // The seq, the ring and the listeners change in one synchronous step, so seqs are given in
    // order without a lock. The live buffer is offered to after it: should two publications reach
    // it in the other order, a reader takes the earlier one from the ring (`open` below).
    const publish = (body: EventBody) =>
      Effect.clockWith((clock) => {
        last += 1
        const event = { ...body, seq: last, at: clock.unsafeCurrentTimeMillis() } as SupervisorEvent
        ring[(last - 1) % retain] = event
        for (const listener of listeners) {
          try {
            listener(event)
          } catch {
            // a listener's failure is its own: the publication and the other readers go on
          }
        }
        return PubSub.publish(live, event)
      })

    /** Subscribes now (in the caller's scope): the stream sees every event published from here on. */
    const open = (o: SubscribeOptions = {}) =>
      Effect.gen(function* () {
        // subscribed first, then the ring read: an event is in one or the other (or both)
        const sub = yield* PubSub.subscribe(live)
        const start = o.since === undefined ? last : Math.max(0, Math.min(o.since, last))
        const replay = catchUp(start, last)
        let seen = last
        // a live event after a gap: what of the gap is still retained comes first
        const follow = Stream.fromQueue(sub).pipe(
          Stream.mapConcat((e): ReadonlyArray<EventStreamItem> => {
            if (e.seq <= seen) return []
            const items = e.seq > seen + 1 ? [...catchUp(seen, e.seq - 1), e] : [e]
            seen = e.seq
            return items
          }),
        )
        const all = Stream.concat(Stream.fromIterable(replay), follow)
        return o.ids === undefined || o.ids.length === 0 ? all : Stream.filter(all, forDaemons(o.ids))
      })

    return {
      publish,
      open,
      subscribe: (o) => Stream.unwrapScoped(open(o)),
      lastSeq: Effect.sync(() => last),
      listen: (listener) => {
        const own = (event: SupervisorEvent) => listener(event) // one entry per call, even for the same function
        listeners.add(own)
        return { last, stop: () => listeners.delete(own) }
      },
      retainedAfter: (after) => catchUp(Math.max(0, after), last),
    } satisfies EventLogShape
  })

/** The live event log, for as long as its scope. */
export const EventLogLive = (options: EventLogOptions = {}) => Layer.scoped(EventLog, makeEventLog(options))

/** An event log that keeps nothing and streams nothing (services built without one). */
export const EventLogNone = Layer.succeed(EventLog, {
  publish: () => Effect.void,
  subscribe: () => Stream.empty,
  open: () => Effect.succeed(Stream.empty),
  lastSeq: Effect.succeed(0),
  listen: () => ({ last: 0, stop: () => {} }),
  retainedAfter: () => [],
})
