import { HttpApiBuilder, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Cause, Effect, Either } from "effect"
import { MAX_BODY_DEPTH, nestsDeeperThan } from "./bodyDepth.js"
import { declaresMoreThan, MAX_BODY_BYTES, readingAtMost } from "./bodySize.js"
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

const tooLarge = problem(
  413,
  "PayloadTooLarge",
  `the request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB, more than any of the API's payloads`,
)

const bounded = <A, E, R>(read: Effect.Effect<A, E, R>) => readingAtMost(read, MAX_BODY_BYTES)

const notJson = problem(
  415,
  "UnsupportedMediaType",
  "the API takes JSON bodies: send content-type: application/json",
)

/** The read failure of a body past MAX_BODY_BYTES (a chunked one: no length to check first). */
const overLimit = (e: unknown) =>
  HttpServerError.isServerError(e) && e.cause instanceof Error && e.cause.message === "maxBytes exceeded"

/**
 * A request refused before the API reads it, or undefined: a body of a type no route takes
 * (multipart would be stored under the system's temporary directory, and an empty one waits
 * forever), or one nested deeper than MAX_BODY_DEPTH. Only a body the API reads as text is read
 * here (it is kept: the handler reads the same text); one that cannot be read is left to it.
 */
const refused = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  if (request.method === "GET" || request.method === "HEAD") return Effect.succeed(undefined)
  // a declared length over the limit is answered before anything is read
  if (declaresMoreThan(request, MAX_BODY_BYTES)) return Effect.succeed(tooLarge)
  const type = (request.headers["content-type"] ?? "application/json").toLowerCase().trim()
  const textual =
    type.includes("application/json") || type.includes("x-www-form-urlencoded") || type.startsWith("text/")
  if (!textual) {
    const length = request.headers["content-length"]
    const hasBody =
      (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
    // read to its end and dropped (not parsed): a client still sending would otherwise get EPIPE
    return hasBody || type.includes("multipart/")
      ? Effect.as(Effect.ignore(bounded(request.arrayBuffer)), notJson)
      : Effect.succeed(undefined)
  }
  // the text is kept: the handler reads the same one (or the same failure) afterwards
  return Effect.map(Effect.either(bounded(request.text)), (text) =>
    Either.isLeft(text) && overLimit(text.left)
      ? tooLarge
      : Either.isRight(text) && nestsDeeperThan(text.right, MAX_BODY_DEPTH)
        ? problem(
            400,
            "BadRequest",
            `the request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep`,
          )
        : undefined,
  )
})

/**
 * Every 4xx of the API carries the JSON error body `{ _tag, message }`: those its schemas describe
 * (BadDaemonId, DaemonNotFound, HttpApiDecodeError, ...) have one, and this middleware gives one
 * to the failures of the HTTP server itself, which would answer with an empty body.
 */
export const ErrorBodiesLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(
    Effect.flatMap(refused, (refused) => (refused === undefined ? app : Effect.succeed(refused))),
    (cause) => {
      const response = bodyless(cause)
      return response === undefined ? Effect.failCause(cause) : Effect.succeed(response)
    },
  ),
)
