import { type Cause, type Duration, Effect, Queue, Schedule, Stream } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { eventDaemon, PATCH_MOST, patchListing } from "../domain/liveListing.js"
import type { LiveStreamItem, UsageSampled } from "../domain/SupervisorEvent.js"

// How the dashboard's table stays current: an event about a daemon fetches that daemon's entry
// and patches it in; a (re)connection or any other event fetches the whole list (the rules of
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
 * What a signal asks for: `all` (the whole list), the ID of one daemon to fetch again, or
 * nothing (a disconnection, the storage events this table does not show, samples).
 */
export const refreshOf = (s: LiveSignal): "all" | string | undefined => {
  if (s._tag === "Open") return "all"
  if (s._tag === "Closed") return undefined
  const tag = s.item._tag
  if (tag === "StorageProblem" || tag === "StorageRecovered" || tag === "UsageSampled") return undefined
  return eventDaemon(s.item) ?? "all"
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
  /** `GET /api/daemons`: the whole list, or (given IDs) those daemons' entries without usage figures. */
  readonly list: (
    ids: ReadonlyArray<string> | undefined,
  ) => Effect.Effect<ReadonlyArray<ApiDaemonEntry>, unknown, R2>
  /** The poll while the stream is down. */
  readonly usageInterval: Duration.DurationInput
  readonly onList: (entries: ReadonlyArray<ApiDaemonEntry>) => void
  readonly onError: (cause: Cause.Cause<unknown>) => void
}

/**
 * Runs forever: one fetch at a time, asked for by signals or by the poll while the stream is
 * down; the signals that come while a fetch is under way are gathered into one more after it
 * (the daemons they name, or the whole list), not one each. A usage sample updates the last list
 * shown without a fetch.
 */
export const liveDaemons = <R1, R2>(o: LiveOptions<R1, R2>) =>
  Effect.gen(function* () {
    const wake = yield* Queue.sliding<void>(1)
    let live = false
    let shown: ReadonlyArray<ApiDaemonEntry> | undefined
    // what the next fetch gets: the whole list, or these daemons' entries
    let all = true
    let ids = new Set<string>()
    const want = (what: "all" | string) =>
      Effect.suspend(() => {
        if (what === "all") all = true
        else ids.add(what)
        return Queue.offer(wake, undefined)
      })
    const show = (entries: ReadonlyArray<ApiDaemonEntry>) => {
      shown = entries
      o.onList(entries)
    }
    const fetchAll = o.list(undefined).pipe(Effect.matchCause({ onFailure: o.onError, onSuccess: show }))
    const fetchNext = Effect.suspend(() => {
      const some = [...ids]
      const whole = all || shown === undefined || some.length > PATCH_MOST
      all = false
      ids = new Set()
      if (whole) return fetchAll
      if (some.length === 0) return Effect.void
      return o.list(some).pipe(
        Effect.matchCauseEffect({
          onFailure: (cause) => Effect.sync(() => o.onError(cause)),
          onSuccess: (fresh) => {
            const patched = shown === undefined ? null : patchListing(shown, fresh, some)
            return patched === null ? fetchAll : Effect.sync(() => show(patched))
          },
        }),
      )
    })
    yield* Effect.forkScoped(
      Effect.suspend(() => (live ? Effect.void : want("all"))).pipe(
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
          const what = refreshOf(s)
          return what === undefined ? Effect.void : want(what)
        }),
        Effect.ignore,
      ),
    )
    return yield* Queue.take(wake).pipe(Effect.zipRight(fetchNext), Effect.forever)
  }).pipe(Effect.scoped)
