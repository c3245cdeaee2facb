import * as fs from "node:fs"
import { createServer, type Server } from "node:http"
import * as nodePath from "node:path"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { Api } from "../api/Api.js"
import { makeAttachUpgrade } from "../api/attach/upgrade.js"
import { jsonClientErrors } from "../api/clientErrors.js"
import { CliLive } from "../api/cliHandlers.js"
import { CommandsLive } from "../api/commandHandlers.js"
import { ErrorBodiesLive } from "../api/errorBodies.js"
import { DaemonsLive } from "../api/handlers.js"
import { NoticesLive } from "../api/notices.js"
import { PresenceLive as PresenceApiLive } from "../api/presenceHandlers.js"
import { countingRequests, withMetricsRoute } from "../metrics/http.js"
import { httpServerContext } from "./httpContext.js"
import { PromptResponse } from "./promptResponse.js"
import { collectAtRest, restCollectionSetting } from "./restCollection.js"
import { withUpgrades } from "./upgrades.js"

export const ApiLive = Layer.mergeAll(
  HttpApiBuilder.api(Api).pipe(Layer.provide([DaemonsLive, CommandsLive, CliLive, PresenceApiLive])),
  ErrorBodiesLive,
  NoticesLive,
)

/**
 * The API on the Unix socket of the state directory. The socket is in a 0700
 * directory and made 0600 once bound: file permissions are its authentication.
 * A stale socket file (left by a killed supervisor) is removed first; the
 * caller holds the supervisor lock, so it cannot belong to a live supervisor.
 */
export const socketServer = (socket: string, wrap: (server: Server) => Server = (s) => s) => {
  const prepare = Layer.effectDiscard(
    Effect.sync(() => {
      fs.mkdirSync(nodePath.dirname(socket), { recursive: true, mode: 0o700 })
      fs.chmodSync(nodePath.dirname(socket), 0o700)
      fs.rmSync(socket, { force: true })
    }),
  )
  return Layer.unwrapEffect(
    Effect.gen(function* () {
      const app = yield* HttpApiBuilder.httpApp
      const attach = yield* makeAttachUpgrade
      const rest = restCollectionSetting(process.env.SUPERVISOR_REST_COLLECTION)
      if (rest.warning !== undefined) yield* Effect.logWarning(rest.warning)
      return HttpServer.serve(countingRequests(withMetricsRoute(app))).pipe(
        Layer.tap(() => Effect.sync(() => fs.chmodSync(socket, 0o600))),
        Layer.provide(
          NodeHttpServer.layerServer(
            () =>
              withUpgrades(
                wrap(
                  jsonClientErrors(
                    collectAtRest(createServer({ ServerResponse: PromptResponse }), rest.options),
                  ),
                ),
                attach(),
              ),
            {
              path: socket,
            },
          ).pipe(Layer.provide(prepare), Layer.merge(httpServerContext)),
        ),
      )
    }),
  ).pipe(Layer.provide(ApiLive), Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
}
