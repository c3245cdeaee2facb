import { HttpServerResponse } from "@effect/platform"

/**
 * An error response outside the typed endpoints (raw handlers, the TCP guard): the same
 * `{ _tag, message }` body as the API's own errors, never cached.
 */
export const problem = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status, headers: { "cache-control": "no-store" } })
