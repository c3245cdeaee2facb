import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { type Effect, Option } from "effect"

// Request bodies are read up to a limit: a declared length over it is refused before anything is
// read, and a read past it (a chunked body) fails, which resets the connection.

/**
 * The largest API request body read (8 MiB): the largest payloads (a start request's `env`, a
 * daemon definition) are kilobytes; a bigger body would only be held in memory whole.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024

/** Whether the request's Content-Length says more than `max` bytes. */
export const declaresMoreThan = (request: HttpServerRequest.HttpServerRequest, max: number): boolean =>
  Number(request.headers["content-length"] ?? 0) > max

/** `read` (the body's text, JSON or bytes) failing once the body passes `max` bytes. */
export const readingAtMost = <A, E, R>(read: Effect.Effect<A, E, R>, max: number) =>
  HttpIncomingMessage.withMaxBodySize(read, Option.some(max))
