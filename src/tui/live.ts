import { type Cause, type Duration, Effect, Queue, Schedule, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { LiveStreamItem, UsageSampled } from "../domain/SupervisorEvent.js"

// How the dashboard's table stays current: the list is fetched again when the event stream says
// something changed (and at each (re)connection of the stream); the CPU, memory, port and uptime
// cells come from the stream's usage samples. While the stream is down, the list is polled every
// `usageInterval` instead. docs/tui.md.

/** What the event stream tells the dashboard: it (re)connected, an item arrived, or it is down. */
export type LiveSignal =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Closed" }
  | { readonly item: LiveStreamItem; readonly _tag: "Item" }

export const opened: LiveSignal = { _tag: "Open" }
export const closed: LiveSignal = { _tag: "Closed" }

/** Whether a signal asks for the list again: a (re)connection, and every event but the storage ones (not shown) and samples. */
export const refreshesList = (s: LiveSignal): boolean =>
  s._tag === "Open" ||
  (s._tag === "Item" &&
    s.item._tag !== "StorageProblem" &&
    s.item._tag !== "StorageRecovered" &&
    s.item._tag !== "UsageSampled")

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
 * not one each. A usage sample updates the last list shown without a fetch.
 */
export const liveDaemons = <R1, R2>(o: LiveOptions<R1, R2>) =>
  Effect.gen(function* () {
    const wanted = yield* Queue.sliding<void>(1)
    let live = false
    let shown: ReadonlyArray<ApiDaemonEntry> | undefined
    const show = (entries: ReadonlyArray<ApiDaemonEntry>) => {
      shown = entries
      o.onList(entries)
    }
    const fetchList = o.list.pipe(Effect.matchCause({ onFailure: o.onError, onSuccess: show }))
    yield* Effect.forkScoped(
      Effect.suspend(() => (live ? Effect.void : Queue.offer(wanted, undefined))).pipe(
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
          return refreshesList(s) ? Queue.offer(wanted, undefined) : Effect.void
        }),
        Effect.ignore,
      ),
    )
    return yield* Queue.take(wanted).pipe(Effect.zipRight(fetchList), Effect.forever)
  }).pipe(Effect.scoped)
