import { type Cause, type Duration, Effect, Queue, Schedule, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { EventStreamItem } from "../domain/SupervisorEvent.js"

// How the dashboard's table stays current: the list is fetched again when the event stream says
// something changed (and at each (re)connection of the stream), and every `usageInterval` for
// the CPU, memory and uptime cells, which are samples rather than events. docs/tui.md.

/** What the event stream tells the dashboard: it (re)connected, or an item arrived. */
export type LiveSignal = { readonly _tag: "Open" } | { readonly item: EventStreamItem; readonly _tag: "Item" }

export const opened: LiveSignal = { _tag: "Open" }

/** Whether a signal changes what the table shows: all but the storage events (which it does not show). */
export const refreshesList = (s: LiveSignal): boolean =>
  s._tag === "Open" || (s.item._tag !== "StorageProblem" && s.item._tag !== "StorageRecovered")

export interface LiveOptions<R1, R2> {
  /** The stream's signals; it reconnects by itself (a failure here just ends following). */
  readonly signals: Stream.Stream<LiveSignal, unknown, R1>
  /** `GET /api/daemons`. */
  readonly list: Effect.Effect<ReadonlyArray<ApiDaemonEntry>, unknown, R2>
  /** The slow refresh for the usage cells, also the poll while the stream is down. */
  readonly usageInterval: Duration.DurationInput
  readonly onList: (entries: ReadonlyArray<ApiDaemonEntry>) => void
  readonly onError: (cause: Cause.Cause<unknown>) => void
}

/**
 * Runs forever: one fetch of the list at a time, asked for by the usage timer or by signals; the
 * signals that come while a fetch is under way ask for one more after it, not one each.
 */
export const liveDaemons = <R1, R2>(o: LiveOptions<R1, R2>) =>
  Effect.gen(function* () {
    const wanted = yield* Queue.sliding<void>(1)
    const fetchList = o.list.pipe(Effect.matchCause({ onFailure: o.onError, onSuccess: o.onList }))
    yield* Effect.forkScoped(
      Queue.offer(wanted, undefined).pipe(Effect.repeat(Schedule.spaced(o.usageInterval))),
    )
    yield* Effect.forkScoped(
      o.signals.pipe(
        Stream.filter(refreshesList),
        Stream.runForEach(() => Queue.offer(wanted, undefined)),
        Effect.ignore,
      ),
    )
    return yield* Queue.take(wanted).pipe(Effect.zipRight(fetchList), Effect.forever)
  }).pipe(Effect.scoped)
