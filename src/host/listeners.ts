import { HttpApiBuilder } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Console, Effect, Layer, Ref } from "effect"
import { makeAttachUpgrade } from "../api/attach/upgrade.js"
import { openApiDocument } from "../api/openapi.js"
import { HostInfo } from "../domain/HostInfo.js"
import type { Settings } from "../domain/Settings.js"
import { countingRequests, withMetricsRoute } from "../metrics/http.js"
import { renderPage } from "../web/page.js"
import { listenerTls } from "./apiTls.js"
import { guarded, normalizeBasePath } from "./guard.js"
import { httpServerContext } from "./httpContext.js"
import { ApiLive } from "./server.js"
import { allowedHosts, isLoopback, ListenError, listen, PLAIN_HTTP_WARNING } from "./tcp.js"
import { checkUpgrade } from "./upgradeGuard.js"

/** One TCP listener to open: the web UI (which serves the API too) or the API alone. */
export interface ListenerPlan {
  readonly kind: "web" | "api"
  readonly address: string
  readonly port: number
  readonly allowNonLoopback: boolean
  /** The path the web UI and the API are served under ("" for the root). */
  readonly basePath: string
  /** HTTPS with a certificate of the local CA (`settings.api.tls`); the web UI listener is plain. */
  readonly tls: boolean
  /** How many ports it tries when its port is busy (`settings.<kind>.port_attempts`). */
  readonly portAttempts: number
}

/** A port named by an environment variable; undefined when it is unset or empty. */
const portFromEnv = (env: Readonly<Record<string, string | undefined>>, name: string) =>
  Effect.gen(function* () {
    const value = env[name]
    if (value === undefined || value === "") return undefined
    const port = /^\d+$/.test(value) ? Number(value) : Number.NaN
    if (!(port >= 0 && port <= 65535))
      return yield* new ListenError({
        message: `${name}=${JSON.stringify(value)}: expected a port number between 0 and 65535 (0 picks a free one)`,
      })
    return port
  })

/**
 * The listeners the settings ask for. The web UI listens when `settings.web.auto_start` is on
 * or `SUPERVISOR_WEB_PORT` (what `supervisor supervisor run|start --web-port` sets) names a
 * port; the API-only listener when `settings.api.auto_start` is on or `SUPERVISOR_API_PORT`
 * names a port (what `supervisor supervisor start --force` sets to keep the running one's).
 */
export const listenerPlans = (
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
): Effect.Effect<ReadonlyArray<ListenerPlan>, ListenError> =>
  Effect.gen(function* () {
    const plans: Array<ListenerPlan> = []
    // `supervisor supervisor run|start --web-path` sets SUPERVISOR_WEB_PATH
    const basePath = normalizeBasePath(env.SUPERVISOR_WEB_PATH ?? settings.web.base_path)
    if (basePath !== "" && !/^(\/[^\s/?#]+)+$/.test(basePath))
      return yield* new ListenError({
        message: `web path ${JSON.stringify(basePath)}: expected a path such as /supervisor (SUPERVISOR_WEB_PATH, --web-path or settings.web.base_path)`,
      })
    const webPort = yield* portFromEnv(env, "SUPERVISOR_WEB_PORT")
    if (webPort !== undefined) {
      plans.push({
        kind: "web",
        address: settings.web.bind_address,
        port: webPort,
        allowNonLoopback: settings.web.allow_non_loopback,
        basePath,
        tls: false,
        portAttempts: settings.web.port_attempts,
      })
    } else if (settings.web.auto_start)
      plans.push({
        kind: "web",
        address: settings.web.bind_address,
        port: settings.web.bind_port,
        allowNonLoopback: settings.web.allow_non_loopback,
        basePath,
        tls: false,
        portAttempts: settings.web.port_attempts,
      })
    const apiPort = yield* portFromEnv(env, "SUPERVISOR_API_PORT")
    if (apiPort !== undefined || settings.api.auto_start)
      plans.push({
        kind: "api",
        address: settings.api.bind_address,
        port: apiPort ?? settings.api.bind_port,
        allowNonLoopback: settings.api.allow_non_loopback,
        basePath: "",
        tls: settings.api.tls,
        portAttempts: settings.api.port_attempts,
      })
    // HTTPS may listen anywhere: the refusal is of the token sent in the clear
    for (const p of plans)
      if (!isLoopback(p.address) && !p.allowNonLoopback && !p.tls)
        return yield* new ListenError({
          message: `settings.${p.kind}.bind_address = ${JSON.stringify(p.address)} is not a loopback address; the API is plain HTTP, so keep it on 127.0.0.1 behind an HTTPS reverse proxy${p.kind === "api" ? ", serve it over HTTPS (settings.api.tls = true)," : ""} or set settings.${p.kind}.allow_non_loopback = true to bind it anyway`,
        })
    return plans
  })

/**
 * Opens the planned TCP listeners over the same API as the Unix socket, each behind the guard
 * (Host check, token or session, the web UI's pages), and records their URLs in HostInfo.
 */
export const tcpListeners = (
  plans: ReadonlyArray<ListenerPlan>,
  token: string,
  options: {
    readonly metricsPublic: boolean
    /** `settings.web.log_lines`: the lines the page's log panel opens with. */
    readonly logLines?: number
  } = { metricsPublic: false },
) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      if (plans.length === 0) return
      const host = yield* HostInfo
      const app = yield* HttpApiBuilder.httpApp
      const attach = yield* makeAttachUpgrade
      // built on the first request for it: most supervisors are never asked
      let spec: ReturnType<typeof openApiDocument> | undefined
      for (const plan of plans) {
        // The Host check needs the bound port, which a busy or 0 port only tells after the bind.
        let hosts: ReadonlySet<string> = new Set()
        const handler = yield* NodeHttpServer.makeHandler(
          countingRequests(
            guarded(withMetricsRoute(app), {
              token,
              allowedHosts: () => hosts,
              sessions: host.sessions,
              ui: plan.kind === "web",
              page: () => renderPage(options.logLines),
              openApi: () => (spec ??= openApiDocument()),
              basePath: plan.basePath,
              metricsPublic: options.metricsPublic && isLoopback(plan.address),
            })(),
            plan.basePath,
          ),
        )
        const tls = plan.tls ? yield* listenerTls(host.stateDir, plan.address) : undefined
        const upgrade = attach(
          checkUpgrade({
            token,
            allowedHosts: () => hosts,
            sessions: host.sessions,
            basePath: plan.basePath,
            tls: tls !== undefined,
          }),
        )
        const bound = yield* listen(handler, plan.address, plan.port, tls, upgrade, plan.portAttempts)
        hosts = allowedHosts(plan.address, bound.port, tls !== undefined)
        const url = `${bound.url}${plan.basePath}`
        yield* Ref.update(host.listeners, (l) => ({ ...l, [plan.kind]: url }))
        if (tls?.note !== undefined) yield* Console.error(tls.note)
        yield* Console.error(
          plan.kind === "web"
            ? `Web UI listening on ${url}`
            : tls === undefined
              ? `HTTP API listening on ${url}/api`
              : `HTTP API listening on ${url}/api (HTTPS; a remote CLI verifies it with --ca ${tls.caFile})`,
        )
        if (!isLoopback(plan.address) && tls === undefined) yield* Console.error(PLAIN_HTTP_WARNING)
      }
    }),
  ).pipe(
    Layer.provide(ApiLive),
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer, httpServerContext]),
  )
