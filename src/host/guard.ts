import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import { declaresMoreThan, readingAtMost } from "../api/bodySize.js"
import { problem } from "../api/problem.js"
import { daemonRoutes } from "../api/routes.js"
import type { Sessions } from "../domain/HostInfo.js"
import { METRICS_PATH } from "../metrics/http.js"
import { sameToken } from "../state/token.js"
import { FAVICON_SVG } from "../web/favicon.js"
import { loginLinkPage } from "../web/loginLink.js"
import { SESSION_TTL_MS } from "./sessions.js"
import { isLoopback } from "./tcp.js"

/** The web UI's login body is `{ "token": ... }`: 64 KiB is far more than a token. */
const LOGIN_BODY_BYTES = 64 * 1024

/**
 * What stands between a TCP connection and the API: the Host check (DNS rebinding), the web UI's
 * own pages (`/`, `/login`, `/logout`), the shape of daemon-ID paths, and authentication (the
 * `X-Supervisor-Token` header, or the web UI's session cookie). The Unix socket needs none of
 * this: its file mode is its authentication.
 */
export interface GuardOptions {
  readonly token: string
  /** `host:port` values a request's Host header may have (lower case); known once bound. */
  readonly allowedHosts: () => ReadonlySet<string>
  readonly sessions: Sessions
  /** Serve the web UI pages (the web listener); the API-only listener does not. */
  readonly ui: boolean
  readonly page: () => string
  readonly openApi: () => unknown
  /**
   * The path everything is served under (`/supervisor`, for a reverse proxy in front), or "" for
   * the root. `/` redirects to it; the API and pages see paths without it.
   */
  readonly basePath: string
  /**
   * `metrics.public` on a loopback listener: `GET /metrics` from a loopback client needs no
   * token (a local Prometheus scrape).
   */
  readonly metricsPublic?: boolean
}

/** `web.base_path` as the guard uses it: "" or `/a/b` (no trailing slash). */
export const normalizeBasePath = (path: string): string => {
  const trimmed = path.trim().replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

export const SESSION_COOKIE = "supervisor_session"

/** A Host header that names no address of this listener (DNS rebinding): the 403's message. */
export const hostNotAllowed = (host: string, allowed: ReadonlySet<string>): string =>
  `the Host header ${JSON.stringify(host)} is not an address of this supervisor (allowed: ${[...allowed].join(", ")})`

/** No session and no right token: the 401's message. */
export const unauthorized = (given: string | undefined): string =>
  given === undefined
    ? "missing X-Supervisor-Token header; `supervisor supervisor token` prints the token"
    : "wrong X-Supervisor-Token; `supervisor supervisor token` prints the token"

/**
 * The CLI's own routes a remote CLI (`supervisor --url`, docs/remote.md) uses over TCP, with the
 * token like any other: its version check, the disabled set, stop by IDs and the log queries.
 * None takes a definition, an environment or a command line; the rest of `/api/cli` (starts with
 * the caller's definitions, ad-hoc runs, shutdown) stays on the Unix socket.
 */
const REMOTE_CLI_ROUTES: ReadonlySet<string> = new Set([
  "GET /api/cli/supervisor",
  "GET /api/cli/disabled",
  "POST /api/cli/stop",
  "POST /api/cli/logs",
  "POST /api/cli/logs/stream",
  "POST /api/cli/logs/text",
  "POST /api/cli/logs/follow",
])

export const isRemoteCliRoute = (method: string, path: string): boolean =>
  REMOTE_CLI_ROUTES.has(`${method.toUpperCase()} ${path}`)

const DAEMON_ROUTES = daemonRoutes().map((r) => r.segments)

/**
 * A path under a daemon route whose ID is not ONE segment (`/api/daemons/ns/name`): the message
 * for a 400, or undefined when the path is well-formed (or not a daemon route).
 */
export const daemonPathProblem = (pathname: string): string | undefined => {
  const segments = pathname.split("/").slice(1)
  // the routes the path is under: the same segments before the ID, and something in its place
  const under = DAEMON_ROUTES.filter((route) => {
    const at = route.indexOf(":id")
    return segments.length > at && route.slice(0, at).every((s, i) => s === segments[i])
  })
  if (under.length === 0) return undefined
  if (under.some((r) => r.length === segments.length && r.every((s, i) => s === ":id" || s === segments[i])))
    return undefined
  const forms = [...new Set(under.map((r) => `/${r.join("/").replace(":id", "{id}")}`))]
  return `no such route ${pathname}: the daemon ID is ONE url-encoded path segment: "app/web" is written app%2Fweb (${forms.join(", ")})`
}

/** The session cookie: HttpOnly, SameSite=Strict, and gone from the browser when the session ends. */
const sessionCookie = (
  res: HttpServerResponse.HttpServerResponse,
  value: string,
  basePath: string,
  maxAge: Duration.Duration = Duration.millis(SESSION_TTL_MS),
) =>
  HttpServerResponse.unsafeSetCookie(res, SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: "strict",
    path: basePath === "" ? "/" : basePath,
    maxAge,
  })

const html = (body: string, options: { status?: number; headers?: Record<string, string> } = {}) =>
  HttpServerResponse.text(body, { contentType: "text/html; charset=utf-8", ...options })

/** The page of a login link that cannot be used: the web page's look, its header and a card. */
const loginPage = (message: string, basePath: string) =>
  html(loginLinkPage(message, basePath), { status: 401, headers: PAGE_HEADERS })

/** Where the page loads the terminal pane's xterm.js and its style sheet from (under the base path). */
const XTERM_JS_PATH = "/assets/xterm.js"
const XTERM_CSS_PATH = "/assets/xterm.css"

/**
 * The headers of the web UI's own pages: no caching, no framing; inline style and script, and the
 * listener's own (the terminal pane's xterm.js, its WebSocket) only.
 */
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'",
  "x-frame-options": "DENY",
}

export const guarded =
  <E, R>(app: HttpApp.Default<E, R>, o: GuardOptions) =>
  (): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const req = yield* HttpServerRequest.HttpServerRequest
      const host = (req.headers.host ?? "").toLowerCase()
      const allowed = o.allowedHosts()
      if (!allowed.has(host)) return problem(403, "HostNotAllowed", hostNotAllowed(host, allowed))
      const url = new URL(req.url, "http://localhost")
      const base = o.basePath
      if (base !== "" && url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        if (url.pathname === "/") return HttpServerResponse.redirect(`${base}/`, { status: 307 })
        return problem(
          404,
          "NotFound",
          `no such route ${req.method} ${url.pathname}: everything is under ${base}/`,
        )
      }
      if (base !== "" && url.pathname === base)
        return HttpServerResponse.redirect(`${base}/${url.search}`, { status: 307 })
      const path = url.pathname.slice(base.length)
      const session = req.cookies[SESSION_COOKIE]
      const hasSession = session !== undefined && o.sessions.isValid(session)

      if (o.ui && req.method === "GET" && (path === "/" || path === "/index.html"))
        return html(o.page(), { headers: PAGE_HEADERS })
      // the page's icon (and the address browsers try without one), public like the page
      if (o.ui && req.method === "GET" && (path === "/favicon.svg" || path === "/favicon.ico"))
        return HttpServerResponse.text(FAVICON_SVG, {
          contentType: "image/svg+xml",
          headers: { "cache-control": "public, max-age=86400" },
        })
      // xterm.js and its style sheet, loaded by the page when its terminal pane first opens:
      // public like the page (a library, no secret), read into the supervisor on the first ask
      if (o.ui && req.method === "GET" && (path === XTERM_JS_PATH || path === XTERM_CSS_PATH)) {
        const { XTERM_CSS, XTERM_JS } = yield* Effect.promise(() => import("../web/terminalAssets.js"))
        return HttpServerResponse.text(path === XTERM_JS_PATH ? XTERM_JS : XTERM_CSS, {
          contentType: path === XTERM_JS_PATH ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
          headers: { "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" },
        })
      }
      if (o.ui && path === "/login" && req.method === "GET") {
        const code = url.searchParams.get("code") ?? ""
        const id = o.sessions.redeem(code)
        if (id === undefined)
          return loginPage(
            "This login link is invalid or was used already; run `supervisor web` for a new one.",
            base,
          )
        return sessionCookie(HttpServerResponse.redirect(`${base}/`, { status: 303 }), id, base)
      }
      if (o.ui && path === "/login" && req.method === "POST") {
        // before authentication: a token's worth of body is read, no more (past it: a reset)
        if (declaresMoreThan(req, LOGIN_BODY_BYTES))
          return problem(
            413,
            "PayloadTooLarge",
            'the login body is larger than 64 KiB: send { "token": ... }',
          )
        const body = yield* readingAtMost(req.json, LOGIN_BODY_BYTES).pipe(
          Effect.orElseSucceed(() => undefined),
        )
        const token =
          typeof body === "object" && body !== null && "token" in body ? String(body.token).trim() : ""
        if (!sameToken(token, o.token))
          return problem(
            401,
            "Unauthorized",
            "wrong token; `supervisor supervisor token` prints the right one",
          )
        return sessionCookie(HttpServerResponse.unsafeJson({ ok: true }), o.sessions.newSession(), base)
      }
      if (o.ui && path === "/logout" && req.method === "POST") {
        if (session !== undefined) o.sessions.revoke(session)
        return sessionCookie(HttpServerResponse.unsafeJson({ ok: true }), "", base, Duration.zero)
      }

      const isMetrics = path === METRICS_PATH && req.method === "GET"
      if (
        isMetrics &&
        o.metricsPublic === true &&
        isLoopback(req.remoteAddress.pipe(Option.getOrElse(() => "")).replace(/^::ffff:/, ""))
      )
        return yield* withBase(app, req, path, url.search, base)
      if (
        !isMetrics &&
        (!path.startsWith("/api/") || (path.startsWith("/api/cli/") && !isRemoteCliRoute(req.method, path)))
      )
        return problem(404, "NotFound", `no such route ${req.method} ${path}`)
      const shape = daemonPathProblem(path)
      if (shape !== undefined) return problem(400, "BadDaemonId", shape)
      const given = req.headers["x-supervisor-token"]
      if (!hasSession && (given === undefined || !sameToken(given, o.token)))
        return problem(401, "Unauthorized", unauthorized(given))
      if (path === "/api/openapi.json" && req.method === "GET")
        return HttpServerResponse.unsafeJson(o.openApi())
      return yield* withBase(app, req, path, url.search, base)
    })

/** Runs `app` on the request; under a base path, with the path it has without it. */
const withBase = <E, R>(
  app: HttpApp.Default<E, R>,
  req: HttpServerRequest.HttpServerRequest,
  path: string,
  search: string,
  base: string,
) =>
  base === ""
    ? app
    : // the API's routes know nothing of the prefix
      app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, req.modify({ url: `${path}${search}` })),
      )
