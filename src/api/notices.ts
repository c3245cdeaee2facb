import { HttpApiBuilder, type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Presence } from "../automation/presence/Presence.js"
import { CLI_HEADER, encodeNotices, NOTICES_HEADER } from "../domain/cliNotices.js"

/**
 * Wraps an app: a request of the CLI (CLI_HEADER) gets the pending autostop notices in its
 * answer's NOTICES_HEADER; each notice is taken once, so it is printed by one command only.
 */
export const withNotices =
  (takeNotices: Effect.Effect<ReadonlyArray<string>>) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      request.headers[CLI_HEADER] === undefined
        ? app
        : Effect.flatMap(app, (response) =>
            Effect.map(takeNotices, (notices) =>
              notices.length === 0
                ? response
                : HttpServerResponse.setHeader(response, NOTICES_HEADER, encodeNotices(notices)),
            ),
          ),
    )

export const NoticesLive = HttpApiBuilder.middleware(
  Effect.map(Presence, (presence) => withNotices(presence.takeNotices)),
)
