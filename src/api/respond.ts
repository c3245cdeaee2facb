// What the API's handlers share: reading a raw request body, an open-ended log stream, the text
// of an error, and every daemon the supervisor knows as the API lists it.
import type { HttpServerRequest } from "@effect/platform"
import { Chunk, Effect, Schema, Stream } from "effect"
import type { HostInfoShape } from "../domain/HostInfo.js"
import { LogStreamItem } from "../domain/LogEntry.js"
import type { ProcessSamplerShape } from "../process/ProcessSampler.js"
import { daemonUsage } from "../supervisor/resourceUsage.js"
import type { Supervisor } from "../supervisor/Supervisor.js"
import { ndjsonLines, ndjsonResponse } from "./ndjson.js"

/** Every daemon the supervisor knows, as the API lists it (usage read from /proc in one pass). */
export const knownEntries = (sup: Supervisor["Type"], sampler: ProcessSamplerShape) =>
  Effect.flatMap(sup.list, (all) =>
    Effect.flatMap(daemonUsage(sampler, all), (usage) =>
      Effect.forEach(all, (r) =>
        sup
          .isDisabled(r.def.id.qualified)
          .pipe(Effect.map((d) => sup.entry(r, d, usage.get(r.def.id.qualified)))),
      ),
    ),
  )

/** A raw handler's JSON body, decoded with `schema`; Left when it is not that. */
export const decodeBody = <A, I>(request: HttpServerRequest.HttpServerRequest, schema: Schema.Schema<A, I>) =>
  request.json.pipe(Effect.flatMap(Schema.decodeUnknown(schema)), Effect.either)

const logLine = ndjsonLines(LogStreamItem)

/**
 * A log stream as an open-ended ndjson response: one entry or `{ _clear, _gen }` per line, until
 * the client leaves or the supervisor shuts down. An empty first chunk sends the headers at once,
 * also when no line comes for a while.
 */
export const ndjsonStream = (items: Stream.Stream<LogStreamItem, unknown>, host: HostInfoShape) =>
  ndjsonResponse(
    items.pipe(
      Stream.map(logLine),
      Stream.catchAll(() => Stream.empty),
      Stream.interruptWhenDeferred(host.shutdown),
      Stream.prepend(Chunk.of(new Uint8Array(0))),
    ),
    { connection: "close" },
  )

export const errorText = (e: unknown): string =>
  typeof e === "object" && e !== null && "message" in e
    ? String((e as { message: unknown }).message)
    : String(e)
