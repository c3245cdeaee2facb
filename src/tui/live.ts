import { type Cause, type Duration, Effect, Queue, Schedule, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { patchListing } from "../domain/liveListing.js"
import {
  type DaemonEntry,
  eventDaemon,
  type LiveStreamItem,
  type UsageSampled,
} from "../domain/SupervisorEvent.js"

// How the dashboard's table stays current: each event about a daemon comes with the daemon's
// entry (`GET /api/events?entries=true`), patched into the table; a (re)connection, any other
// event, or an entry of a daemon not shown (or gone) fetches the whole list (the rules of
// src/domain/liveListing.ts, shared with the web page). The CPU, memory, port and uptime cells
// come from the stream's usage samples. While the stream is down, the list is polled every
// `usageInterval` instead. docs/tui.md.

/** What the event stream tells the dashboard: it (re)connected, an item arrived, or it is down. */
export type LiveSignal =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Closed" }
  | { readonly item: LiveStreamItem; readonly _tag: "Item" }

export const opened: LiveSignal = { _tag: "Open" }
export const closed: LiveSignal = { _tag: "Closed" }

/**
 * Whether a signal asks for the whole list: a (re)connection, and every event but those about a
 * daemon (its entry follows), the storage ones (not shown), samples and entries (patched).
 */
export const refreshesList = (s: LiveSignal): boolean => {
  if (s._tag !== "Item") return s._tag === "Open"
  const item = s.item
  if (item._tag === "UsageSampled" || item._tag === "DaemonEntry") return false
  if (item._tag === "StorageProblem" || item._tag === "StorageRecovered") return false
  return eventDaemon(item) === undefined
}

/** The entries with a sample's figures; a daemon whose pid changed since keeps its own until the next list. */
export const withUsage = (
  entries: ReadonlyArray<ApiDaemonEntry>,
  sample: UsageSampled,
): ReadonlyArray<ApiDaemonEntry> => {
  const byId = new Map(sample.daemons.map((d) => [d.id, d]))
  return entries.map((e) => {
    const d = byId.get(e.id.qualified)
    return d === undefined || d.pid !== e.pid
      ? e
      : {
          ...e,
          cpu_percent: d.cpu_percent,
          memory_bytes: d.memory_bytes,
          active_port: d.active_port,
          uptime_secs: d.uptime_secs,
        }
  })
}

export interface LiveOptions<R1, R2> {
  /** The stream's signals; it reconnects by itself (a failure here just ends following). */
  readonly signals: Stream.Stream<LiveSignal, unknown, R1>
  /** `GET /api/daemons`. */
  readonly list: Effect.Effect<ReadonlyArray<ApiDaemonEntry>, unknown, R2>
  /** The poll while the stream is down. */
  readonly usageInterval: Duration.DurationInput
  readonly onList: (entries: ReadonlyArray<ApiDaemonEntry>) => void
  readonly onError: (cause: Cause.Cause<unknown>) => void
}

/**
 * Runs forever: one fetch of the list at a time, asked for by signals or by the poll while the
 * stream is down; the signals that come while a fetch is under way ask for one more after it,
 * not one each. A usage sample or a daemon's entry updates the last list shown without a fetch.
 */
export const liveDaemons = <R1, R2>(o: LiveOptions<R1, R2>) =>
  Effect.gen(function* () {
    const wanted = yield* Queue.sliding<void>(1)
    let live = false
    let fetching = false
    let shown: ReadonlyArray<ApiDaemonEntry> | undefined
    // the table is drawn by its own fiber from the latest list: the entries of one burst of events
    // (five a restart) that arrive together make one drawing, not one each
    const draw = yield* Queue.sliding<void>(1)
    const show = (entries: ReadonlyArray<ApiDaemonEntry>) => {
      shown = entries
      Queue.unsafeOffer(draw, undefined)
    }
    yield* Effect.forkScoped(
      Queue.take(draw).pipe(
        Effect.zipRight(
          Effect.sync(() => {
            if (shown !== undefined) o.onList(shown)
          }),
        ),
        Effect.forever,
      ),
    )
    const fetchList = Effect.suspend(() => {
      fetching = true
      return o.list.pipe(
        Effect.matchCause({ onFailure: o.onError, onSuccess: show }),
        Effect.ensuring(
          Effect.sync(() => {
            fetching = false
          }),
        ),
      )
    })
    const wantList = Queue.offer(wanted, undefined)
    /** A daemon's entry: patched in, or the whole list when it came or went. */
    const patch = (item: DaemonEntry) =>
      Effect.suspend(() => {
        const patched = shown === undefined || item.entry === null ? null : patchListing(shown, item.entry)
        if (patched === null) return wantList
        show(patched)
        // a list under way may be older than this entry: one more after it
        return fetching ? wantList : Effect.void
      })
    yield* Effect.forkScoped(
      Effect.suspend(() => (live ? Effect.void : wantList)).pipe(
        Effect.repeat(Schedule.spaced(o.usageInterval)),
      ),
    )
    yield* Effect.forkScoped(
      o.signals.pipe(
        Stream.runForEach((s) => {
          if (s._tag !== "Item") live = s._tag === "Open"
          if (s._tag === "Item" && s.item._tag === "UsageSampled") {
            const sample = s.item
            return Effect.sync(() => {
              if (shown !== undefined) show(withUsage(shown, sample))
            })
          }
          if (s._tag === "Item" && s.item._tag === "DaemonEntry") return patch(s.item)
          return refreshesList(s) ? wantList : Effect.void
        }),
        Effect.ignore,
      ),
    )
    return yield* Queue.take(wanted).pipe(Effect.zipRight(fetchList), Effect.forever)
  }).pipe(Effect.scoped)
