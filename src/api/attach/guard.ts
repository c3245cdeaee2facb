// Who may open the attach WebSocket on a TCP listener: the rules of every route (src/host/guard.ts:
// the Host check, then the token or the web page's session cookie) and one more, the Origin: a
// browser lets any page open a WebSocket anywhere, with the cookies of the target.
import type { IncomingMessage } from "node:http"
import type { Sessions } from "../../domain/HostInfo.js"
import { sameToken } from "../../state/token.js"

export interface UpgradeGuard {
  readonly token: string
  /** `host:port` values the Host header may have (lower case). */
  readonly allowedHosts: () => ReadonlySet<string>
  readonly sessions: Sessions
  /** The path everything is served under ("" for the root). */
  readonly basePath: string
  readonly tls: boolean
  readonly cookie: string
}

export interface Refusal {
  readonly status: number
  readonly tag: string
  readonly message: string
}

const cookieValue = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=")
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim())
  }
  return undefined
}

/** The request's path under the base path, or why it is refused. */
export const checkUpgrade = (req: IncomingMessage, g: UpgradeGuard): { readonly path: string } | Refusal => {
  const host = (req.headers.host ?? "").toLowerCase()
  const allowed = g.allowedHosts()
  if (!allowed.has(host))
    return {
      status: 403,
      tag: "HostNotAllowed",
      message: `the Host header ${JSON.stringify(host)} is not an address of this supervisor`,
    }
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
  const session = cookieValue(req.headers.cookie, g.cookie)
  const token = req.headers["x-supervisor-token"]
  const given = Array.isArray(token) ? token[0] : token
  if (
    !(session !== undefined && g.sessions.isValid(session)) &&
    (given === undefined || !sameToken(given, g.token))
  )
    return {
      status: 401,
      tag: "Unauthorized",
      message:
        given === undefined
          ? "missing X-Supervisor-Token header; `supervisor supervisor token` prints the token"
          : "wrong X-Supervisor-Token; `supervisor supervisor token` prints the token",
    }
  return { path: url.pathname.slice(g.basePath.length) }
}
