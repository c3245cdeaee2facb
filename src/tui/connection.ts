import * as nodePath from "node:path"
import { HttpClientRequest, HttpClientResponse } from "@effect/platform"
import * as Ndjson from "@effect/platform/Ndjson"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Cause, Chunk, type Duration, Effect, ManagedRuntime, Option, Schedule, Schema, Stream } from "effect"
import { SupervisorClient, supervisorClientLayer } from "../cli/client.js"
import { ndjsonItems } from "../cli/ndjson.js"
import { loadConfig } from "../config/Loader.js"
import type { ApiDaemonEntry, ControlResult } from "../domain/ApiDaemonEntry.js"
import { Command } from "../domain/Command.js"
import { actionCommand, actionFailure } from "../domain/daemonAction.js"
import { LogStreamItem } from "../domain/LogEntry.js"
import { LiveStreamItem } from "../domain/SupervisorEvent.js"
import type { Verb } from "./keys.js"
import { closed, type LiveSignal, liveDaemons, opened } from "./live.js"

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
export const listDaemons = Effect.flatMap(SupervisorClient, (c) => c.api.daemons.list({ urlParams: {} }))

const decodeEvent = Schema.decodeUnknownOption(LiveStreamItem)

/**
 * `GET /api/events?usage=true&entries=true` as ndjson: `Open` once its headers came (at each (re)connection),
 * then each item (one of a kind this dashboard does not know is skipped), `Closed` when it ends
 * or fails (the supervisor restarted); it is opened again a second later, forever.
 */
export const eventSignals: Stream.Stream<LiveSignal, never, SupervisorClient> = Stream.unwrapScoped(
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    // any answer but 200 fails with the HTTP client's ResponseError (the request and its status)
    const res = yield* c.http
      .execute(HttpClientRequest.get("http://localhost/api/events?usage=true&entries=true"))
      .pipe(Effect.flatMap(HttpClientResponse.filterStatusOk))
    const items = res.stream.pipe(
      Stream.decodeText(),
      Stream.pipeThroughChannel(Ndjson.unpackString()),
      Stream.filterMap(
        (json): Option.Option<LiveSignal> =>
          Option.map(decodeEvent(json), (item) => ({ _tag: "Item", item })),
      ),
    )
    return Stream.concat(Stream.make(opened), items)
  }),
).pipe(
  Stream.catchAllCause(() => Stream.empty),
  Stream.concat(Stream.make(closed)),
  Stream.repeat(Schedule.spaced("1 second")),
)

/**
 * Keeps the listing current: again on every event of the stream that changes it and at each
 * (re)connection, its usage cells from the stream's samples, and every `usageInterval` while the
 * stream is down.
 */
export const liveListing = (
  usageInterval: Duration.DurationInput,
  onList: (entries: ReadonlyArray<ApiDaemonEntry>) => void,
  onError: (message: string) => void,
) =>
  liveDaemons({
    signals: eventSignals,
    list: listDaemons,
    usageInterval,
    onList,
    onError: (cause) => onError(reason(cause)),
  })

/**
 * The command of a key's action on the daemons `ids` (the marked ones, or the selected one), with
 * reason `tui` (docs/api.md, "Commands"): one command for them all, as `supervisor stop a b` sends.
 */
export const verbCommand = (verb: Verb, ids: ReadonlyArray<string>): Command =>
  Schema.decodeUnknownSync(Command)(actionCommand(verb, ids, "tui"))

/**
 * Why a command's answer is a failure for some of `ids`: each daemon's own outcome; one daemon's
 * answer is read as the web page reads it (src/domain/daemonAction.ts). Empty when none failed.
 */
export const actionFailures = (ids: ReadonlyArray<string>, answer: unknown): string => {
  if (ids.length === 1) return actionFailure(ids[0]!, answer)
  if (!Array.isArray(answer)) return ""
  return ids
    .map((id) => {
      const own: unknown = answer.find((o) => o !== null && typeof o === "object" && o.id === id)
      const error = own === undefined ? "" : actionFailure(id, [own])
      // among several, each failure names its daemon
      return error === "" || error.includes(id) ? error : `${id}: ${error}`
    })
    .filter((e) => e !== "")
    .join("; ")
}

/** `POST /api/commands` of the key's action: its result, or the failure as a result. */
export const control = (
  verb: Verb,
  ids: ReadonlyArray<string>,
): Effect.Effect<ControlResult, never, SupervisorClient> =>
  Effect.flatMap(SupervisorClient, (c) =>
    // one request of the union of commands (the client's parameter is a union of one per command)
    c.api.commands.handle({ payload: verbCommand(verb, ids) } as Parameters<typeof c.api.commands.handle>[0]),
  ).pipe(
    Effect.map((answer): ControlResult => {
      const error = actionFailures(ids, answer)
      return error === "" ? { ok: true } : { ok: false, error }
    }),
    // a typed failure (an unknown daemon, ...) says why in its message
    Effect.catchAll((e) => Effect.succeed({ ok: false, error: e.message })),
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

/**
 * The configuration a daemon's file belongs to, as `supervisor graph` reads it from that file's
 * directory (with this environment): where the dashboard's graph view finds its dependencies.
 */
export const configAt = (source: string) =>
  loadConfig({ cwd: nodePath.dirname(source), env: process.env }).pipe(
    Effect.mapError((e) => (e._tag === "ConfigInvalid" ? e.message : String(e))),
    Effect.provide(NodeFileSystem.layer),
  )
