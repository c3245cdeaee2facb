// Who may open a WebSocket (the attach route, src/api/attach/upgrade.ts) on a TCP listener: the
// rules of every route (guard.ts: the Host check, then the token or the web page's session
// cookie) and one more, the Origin: a browser lets any page open a WebSocket anywhere, with the
// cookies of the target.
import type { IncomingMessage } from "node:http"
import { Cookies } from "@effect/platform"
import type { Refusal } from "../api/attach/upgrade.js"
import type { Sessions } from "../domain/HostInfo.js"
import { sameToken } from "../state/token.js"
import { hostNotAllowed, SESSION_COOKIE, unauthorized } from "./guard.js"

export interface UpgradeGuard {
  readonly token: string
  /** `host:port` values the Host header may have (lower case). */
  readonly allowedHosts: () => ReadonlySet<string>
  readonly sessions: Sessions
  /** The path everything is served under ("" for the root). */
  readonly basePath: string
  readonly tls: boolean
}

/** The request's path under the base path, or why it is refused. */
export const checkUpgrade =
  (g: UpgradeGuard) =>
  (req: IncomingMessage): { readonly path: string } | Refusal => {
    const host = (req.headers.host ?? "").toLowerCase()
    const allowed = g.allowedHosts()
    if (!allowed.has(host))
      return { status: 403, tag: "HostNotAllowed", message: hostNotAllowed(host, allowed) }
    const origin = req.headers.origin
    if (origin !== undefined && origin.toLowerCase() !== `${g.tls ? "https" : "http"}://${host}`)
      return {
        status: 403,
        tag: "OriginNotAllowed",
        message: `a WebSocket from ${JSON.stringify(origin)} is not allowed: only the supervisor's own pages may attach`,
      }
    const url = new URL(req.url ?? "/", "http://localhost")
    if (g.basePath !== "" && !url.pathname.startsWith(`${g.basePath}/`))
      return {
        status: 404,
        tag: "NotFound",
        message: `no such route ${url.pathname}: everything is under ${g.basePath}/`,
      }
    const session = Cookies.parseHeader(req.headers.cookie ?? "")[SESSION_COOKIE]
    const header = req.headers["x-supervisor-token"]
    const given = Array.isArray(header) ? header[0] : header
    if (
      !(session !== undefined && g.sessions.isValid(session)) &&
      (given === undefined || !sameToken(given, g.token))
    )
      return { status: 401, tag: "Unauthorized", message: unauthorized(given) }
    return { path: url.pathname.slice(g.basePath.length) }
  }
