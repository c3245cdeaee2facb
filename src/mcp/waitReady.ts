import { type HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import * as Ndjson from "@effect/platform/Ndjson"
import { type Effect, Option, Schema, Stream } from "effect"
import type { StatusType } from "../domain/DaemonStatus.js"
import { EventStreamItem } from "../domain/SupervisorEvent.js"

/**
 * `wait_ready`: waits, on the supervisor's event stream (`GET /api/events`), until a daemon's next
 * run is ready, or says why it is not (its readiness output, or how it ended and its last lines).
 */

const decodeItem = Schema.decodeUnknown(EventStreamItem)

/**
 * Opens `GET /api/events` for `ids`, after `since` (a seq; none: only new events). Once this
 * succeeds the supervisor has subscribed this reader: no later event is missed.
 */
export const openEvents = (
  http: HttpClient.HttpClient,
  query: { readonly ids: ReadonlyArray<string>; readonly since?: number | undefined },
) => {
  const params = new URLSearchParams()
  if (query.since !== undefined) params.set("since", String(query.since))
  for (const id of query.ids) params.append("id", id)
  const text = params.toString()
  return http.execute(HttpClientRequest.get(`http://localhost/api/events${text === "" ? "" : `?${text}`}`))
}

/** The items of an opened event stream, as they arrive. */
export const eventItems = (response: HttpClientResponse.HttpClientResponse) =>
  response.stream.pipe(
    Stream.decodeText(),
    Stream.pipeThroughChannel(Ndjson.unpackString()),
    Stream.mapEffect((item) => decodeItem(item)),
  )

export const WaitReadyOutcome = Schema.Literal("ready", "not_ready", "timed_out")

/** The answer of `wait_ready`. */
export const WaitReadyOutput = Schema.Struct({
  id: Schema.String,
  outcome: WaitReadyOutcome.annotations({
    description: "ready; not_ready (its readiness failed, or it exited or stopped before); timed_out",
  }),
  /** The process of the ready run (null when not ready). */
  pid: Schema.NullOr(Schema.Int),
  /** The event that decided it (its seq in the stream), null on a timeout. */
  seq: Schema.NullOr(Schema.Int),
  /** The daemon's status when the wait ended. */
  status: Schema.String,
  /** Why it is not ready, in words; null when ready. */
  message: Schema.NullOr(Schema.String),
  /** The failing readiness check's output, or the daemon's last log lines; empty when ready. */
  output: Schema.Array(Schema.String),
}).annotations({ identifier: "WaitReadyOutput" })
export type WaitReadyOutput = typeof WaitReadyOutput.Type

/** Where a wait is: before the daemon's next run began, or in it. */
type Decided = Omit<WaitReadyOutput, "output"> & { readonly output?: ReadonlyArray<string> }

const ENDED: ReadonlyArray<StatusType> = ["errored", "failed", "stopped"]

/**
 * The first decisive event for daemon `id` in `items`: once a run began (a change to `waiting`, or
 * `begun` already: the daemon was starting when the wait began), its readiness passed (ready) or
 * failed, or it ended (errored, failed, stopped) before it was ready.
 */
export const decide = <E, R>(
  id: string,
  items: Stream.Stream<EventStreamItem, E, R>,
  options: { readonly begun: boolean; readonly after?: number | undefined },
): Effect.Effect<Option.Option<Decided>, E, R> => {
  let begun = options.begun
  return items.pipe(
    Stream.filter(
      (e) => e._tag !== "EventsDropped" && (options.after === undefined || e.at >= options.after),
    ),
    Stream.filterMap((e): Option.Option<Decided> => {
      if (!("id" in e) || e.id !== id) return Option.none()
      if (e._tag === "DaemonStateChanged") {
        if (e.to === "waiting") {
          begun = true
          return Option.none()
        }
        if (!begun) return Option.none()
        if (e.to === "running")
          return Option.some({ id, outcome: "ready", pid: e.pid, seq: e.seq, status: e.to, message: null })
        if (ENDED.includes(e.to))
          return Option.some({
            id,
            outcome: "not_ready",
            pid: null,
            seq: e.seq,
            status: e.to,
            message:
              e.message ??
              (e.exit_code !== null
                ? `exited with code ${e.exit_code}`
                : e.signal !== null
                  ? `killed by ${e.signal}`
                  : `${e.to} (${e.reason})`),
          })
        return Option.none()
      }
      if (e._tag === "ReadinessPassed")
        return Option.some({ id, outcome: "ready", pid: e.pid, seq: e.seq, status: "running", message: null })
      if (e._tag === "ReadinessFailed" && begun)
        return Option.some({
          id,
          outcome: "not_ready",
          pid: null,
          seq: e.seq,
          status: "errored",
          message: `not ready: ${e.message}`,
          output: e.output,
        })
      return Option.none()
    }),
    Stream.runHead,
  )
}
