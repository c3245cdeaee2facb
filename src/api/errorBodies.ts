import { HttpApiBuilder, HttpServerError } from "@effect/platform"
import { Cause, Effect } from "effect"
import { problem } from "./problem.js"

/**
 * The answer to what the HTTP server would answer with an empty body: a request body that is not
 * JSON (or could not be read), an unknown route. Undefined for anything else.
 */
const bodyless = (cause: Cause.Cause<unknown>) => {
  const e = Cause.squash(cause)
  if (!HttpServerError.isServerError(e)) return undefined
  switch (e._tag) {
    case "RequestError": {
      const why = e.cause instanceof Error ? `: ${e.cause.message}` : ""
      return e.reason === "Decode"
        ? problem(400, "BadRequest", `the request body is not valid JSON${why}`)
        : problem(400, "BadRequest", `the request body could not be read${why}`)
    }
    case "RouteNotFound":
      return problem(404, "NotFound", `no such route ${e.request.method} ${e.request.url}`)
    default:
      return undefined
  }
}

/**
 * Every 4xx of the API carries the JSON error body `{ _tag, message }`: those its schemas describe
 * (BadDaemonId, DaemonNotFound, HttpApiDecodeError, ...) have one, and this middleware gives one
 * to the failures of the HTTP server itself, which would answer with an empty body.
 */
export const ErrorBodiesLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(app, (cause) => {
    const response = bodyless(cause)
    return response === undefined ? Effect.failCause(cause) : Effect.succeed(response)
  }),
)
