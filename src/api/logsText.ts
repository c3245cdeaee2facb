// `POST /api/cli/logs/text` and `/logs/text-from`: one daemon's stored lines as plain text, as
// `supervisor logs ID [-n N] [--raw] [--no-timestamp]` prints them. The store hands out the bytes
// it read, about 1 MiB at a time (LogStore.text): no entry object, no JSON per line, on either side.
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either, Stream } from "effect"
import type { ControlShape } from "../control/Control.js"
import { DEFAULT_TIMESTAMP_FORMAT } from "../domain/timestampFormat.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import { LogsTextFromRequest, LogsTextQuery } from "./Api.js"
import { problem } from "./problem.js"
import { decodeBody, errorText } from "./respond.js"

export interface LogsTextDeps {
  readonly logs: LogStoreShape
  readonly version: string
  readonly control: ControlShape
}

type TextQuery = typeof LogsTextQuery.Type

/**
 * The text response. A malformed ID is refused before it starts; a read that fails once it has
 * started breaks the connection, so that the client cannot take a cut-off text for the whole.
 */
const textResponse = (deps: LogsTextDeps, request: HttpServerRequest.HttpServerRequest, q: TextQuery) =>
  Effect.gen(function* () {
    const checked = yield* Effect.either(deps.logs.stats(q.id))
    if (Either.isLeft(checked)) return problem(400, "BadRequest", checked.left.message)
    const text = deps.logs
      .text(q.id, {
        ...(q.lines !== undefined && { lines: q.lines }),
        ...(q.raw !== undefined && { raw: q.raw }),
        ...(q.timestamps !== undefined && { timestamps: q.timestamps }),
      })
      .pipe(
        Stream.catchAll((error) =>
          Stream.execute(
            Effect.logWarning(`logs of ${q.id} broke off: ${errorText(error)}`).pipe(
              Effect.zipRight(Effect.sync(() => NodeHttpServerRequest.toServerResponse(request).destroy())),
            ),
          ),
        ),
      )
    return HttpServerResponse.stream(text, {
      contentType: "text/plain; charset=utf-8",
      headers: { "cache-control": "no-store" },
    })
  })

/** `POST /api/cli/logs/text`: the ID is qualified (the CLI resolved it). */
export const logsText = (deps: LogsTextDeps) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const decoded = yield* decodeBody(request, LogsTextQuery)
    if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed logs text query")
    return yield* textResponse(deps, request, decoded.right)
  })

const fallback = (why: string) => problem(409, "Fallback", why)

/**
 * `POST /api/cli/logs/text-from`: the ID as typed, resolved as the CLI resolves it from `cwd`.
 * Whatever the CLI would print besides the lines (configuration warnings, an unknown or ambiguous
 * ID) is left to it: the answer is then a 409 `Fallback`.
 */
export const logsTextFrom = (deps: LogsTextDeps) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const decoded = yield* decodeBody(request, LogsTextFromRequest)
    if (Either.isLeft(decoded)) return problem(400, "BadRequest", "malformed logs text-from request")
    const { version, cwd, env, ...query } = decoded.right
    if (version !== deps.version) return fallback(`the supervisor is version ${deps.version}`)
    const resolved = yield* Effect.either(deps.control.resolveFrom({ cwd, env }, query.id))
    if (Either.isLeft(resolved)) return fallback(resolved.left.message)
    // the CLI's `settings.logs`: no timestamps, or timestamps in a format of their own (the CLI's)
    const { timestamp, timestamp_format } = resolved.right.settings.logs
    const timestamps = query.timestamps === true && timestamp
    if (timestamps && timestamp_format !== DEFAULT_TIMESTAMP_FORMAT)
      return fallback("settings.logs.timestamp_format is the CLI's to apply")
    return yield* textResponse(deps, request, { ...query, id: resolved.right.id, timestamps })
  })
