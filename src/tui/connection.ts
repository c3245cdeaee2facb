import { HttpClientRequest } from "@effect/platform"
import { Cause, Chunk, type Duration, Effect, ManagedRuntime, Schedule, Schema, Stream } from "effect"
import { SupervisorClient, supervisorClientLayer } from "../cli/client.js"
import { ndjsonItems } from "../cli/ndjson.js"
import type { ApiDaemonEntry, ControlResult } from "../domain/ApiDaemonEntry.js"
import { LogStreamItem } from "../domain/LogEntry.js"
import type { Verb } from "./keys.js"

// What the dashboard asks of the supervisor, through the CLI's own client (src/cli/client.ts):
// the same socket and version check. `supervisor tui` has started the supervisor if needed
// (settings.supervisor.auto_start) before this process runs, so this one never starts it.

export const makeRuntime = () => ManagedRuntime.make(supervisorClientLayer({ autoStart: false }))
export type TuiRuntime = ReturnType<typeof makeRuntime>

/** The first line of a failure, for the status line. */
const reason = (cause: Cause.Cause<unknown>): string => {
  const text = Cause.pretty(cause).split("\n")[0] ?? "unknown error"
  return /ENOENT|ECONNREFUSED|Transport error|socket/i.test(text) ? "the supervisor is not answering" : text
}

/** `GET /api/daemons`. */
export const listDaemons = Effect.flatMap(SupervisorClient, (c) => c.api.daemons.list())

/**
 * Lists the daemons every `interval`, forever: each listing to `onList`, each failure (the
 * supervisor stopped, a restart under way) to `onError`, and the next try comes all the same.
 */
export const pollDaemons = (
  interval: Duration.DurationInput,
  onList: (entries: ReadonlyArray<ApiDaemonEntry>) => void,
  onError: (message: string) => void,
) =>
  listDaemons.pipe(
    Effect.matchCause({
      onFailure: (cause) => onError(reason(cause)),
      onSuccess: (entries) => onList(entries),
    }),
    Effect.repeat(Schedule.spaced(interval)),
  )

/** `POST /api/daemons/{id}/{verb}`: its result, or the failure as a result. */
export const control = (verb: Verb, id: string): Effect.Effect<ControlResult, never, SupervisorClient> =>
  Effect.flatMap(SupervisorClient, (c) => c.api.daemons[verb]({ path: { id } })).pipe(
    Effect.catchAllCause((cause) => Effect.succeed({ ok: false, error: reason(cause) })),
  )

const decodeItem = Schema.decodeUnknownSync(LogStreamItem)

/**
 * Follows a daemon's log (`GET /api/logs/{id}/tail`): `onStart` at each (re)connection, then
 * its last `lines` entries and every new one to `onItems`. A stream that ends or fails (the
 * supervisor restarted) is opened again a second later, until the fiber is interrupted.
 */
export const followLog = (
  id: string,
  lines: number,
  onStart: () => void,
  onItems: (items: ReadonlyArray<LogStreamItem>) => void,
) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const request = HttpClientRequest.get(`http://localhost/api/logs/${encodeURIComponent(id)}/tail`).pipe(
      HttpClientRequest.setUrlParam("lines", String(lines)),
    )
    onStart()
    yield* ndjsonItems(c, request).pipe(
      Stream.map(decodeItem),
      Stream.runForEachChunk((chunk) => Effect.sync(() => onItems(Chunk.toReadonlyArray(chunk)))),
    )
  }).pipe(
    Effect.catchAllCause(() => Effect.void),
    Effect.repeat(Schedule.spaced("1 second")),
  )
