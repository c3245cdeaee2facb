import { type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Exit } from "effect"
import { Metrics } from "./Metrics.js"
import { routeOf } from "./requests.js"
import { CONTENT_TYPE } from "./text.js"

/** The path of the metrics, on every listener (behind the TCP guard's authentication). */
export const METRICS_PATH = "/metrics"

/** `app` that also answers `GET /metrics` with the metrics in the Prometheus text format. */
export const withMetricsRoute = <E, R>(
  app: HttpApp.Default<E, R>,
): HttpApp.Default<E, R | Metrics | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    if (req.method === "GET" && new URL(req.url, "http://localhost").pathname === METRICS_PATH) {
      const metrics = yield* Metrics
      const body = yield* metrics.render
      return HttpServerResponse.text(body, {
        contentType: CONTENT_TYPE,
        headers: { "cache-control": "no-store" },
      })
    }
    return yield* app
  })

/**
 * `app` with each answered request counted by method, route template and status code (a
 * failure counts as the status the server answers it with). `basePath` is cut off the path first.
 */
export const countingRequests = <E, R>(
  app: HttpApp.Default<E, R>,
  basePath = "",
): HttpApp.Default<E, R | Metrics | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const metrics = yield* Metrics
    const pathname = new URL(req.url, "http://localhost").pathname
    const path = basePath !== "" && pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname
    return yield* app.pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.sync(() => metrics.countRequest(req.method, routeOf(path), exit.value.status))
          : Effect.map(HttpServerError.causeResponse(exit.cause), ([res]) =>
              metrics.countRequest(req.method, routeOf(path), res.status),
            ),
      ),
    )
  })
