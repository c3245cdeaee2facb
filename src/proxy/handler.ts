import * as http from "node:http"
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2"
import * as net from "node:net"
import type { Duplex } from "node:stream"
import { endToEnd, forwardHeaders, hopsOf, requestHost, upgradeRequestHead } from "./headers.js"
import { failure, type ProxyFailure, renderFailure } from "./pages.js"
import { DEFAULT_ADDRESS, type Routed, type RouteOptions, route, unreachable, whenRouted } from "./route.js"

export type { ProxyTarget, Resolution } from "./route.js"

export interface HandlerOptions extends RouteOptions {
  readonly proto: "http" | "https"
  /** How long the daemon may take to send a response's headers before a 504 (default 2 minutes). */
  readonly responseTimeout?: number
}

export const RESPONSE_TIMEOUT = 120_000

/** A request of HTTP/1.1 or of the HTTP/2 compatibility API (which has no Connection headers). */
type Request = http.IncomingMessage | Http2ServerRequest
type Response = http.ServerResponse | Http2ServerResponse

export interface ProxyHandler {
  readonly request: (req: Request, res: Response) => void
  readonly upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void
  /** Closes the kept-alive connections to the daemons. */
  readonly close: () => void
}

/** Routes a request of either HTTP version by its Host (or :authority). */
const routeRequest = (req: Request, options: HandlerOptions) =>
  route(requestHost(req.headers, req.httpVersionMajor), hopsOf(req.headers), options)

const sendFailure = (req: Request, res: Response, f: ProxyFailure) => {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const page = renderFailure(f, req.headers.accept)
  res.writeHead(f.status, { "content-type": page.contentType, "cache-control": "no-store" })
  res.end(page.body)
}

const socketFailure = (req: Request, socket: Duplex, f: ProxyFailure) => {
  const page = renderFailure(f, req.headers.accept)
  const body = Buffer.from(page.body)
  socket.end(
    `HTTP/1.1 ${f.status} ${http.STATUS_CODES[f.status] ?? f.title}\r\ncontent-type: ${page.contentType}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${page.body}`,
  )
}

/**
 * The proxy as plain Node handlers, to mount on an HTTP/1.1 server or the HTTP/2 compatibility
 * API: streams both ways without buffering, keeps connections to each daemon alive.
 */
export const makeProxyHandler = (options: HandlerOptions): ProxyHandler => {
  const agents = new Map<string, http.Agent>()
  const agentFor = (address: string, port: number) => {
    const key = `${address} ${port}`
    let agent = agents.get(key)
    if (agent === undefined) {
      agent = new http.Agent({ keepAlive: true, maxFreeSockets: 64 })
      agents.set(key, agent)
    }
    return agent
  }
  const responseTimeout = options.responseTimeout ?? RESPONSE_TIMEOUT

  const forward = (req: Request, res: Response, { host, port, address = DEFAULT_ADDRESS }: Routed) => {
    const headers = forwardHeaders(req.headers, {
      remoteAddress: req.socket.remoteAddress,
      host,
      proto: options.proto,
      hops: hopsOf(req.headers),
    })
    const upstream = http.request({
      host: address,
      port,
      method: req.method,
      path: req.url,
      headers,
      agent: agentFor(address, port),
    })
    const timer = setTimeout(() => {
      sendFailure(
        req,
        res,
        failure(504, "Gateway Timeout", [
          `The daemon on port ${port} sent no response within ${responseTimeout / 1000}s.`,
        ]),
      )
      upstream.destroy()
    }, responseTimeout)
    upstream.on("response", (up) => {
      clearTimeout(timer)
      // Hop-by-hop headers dropped: Node frames the body itself (and HTTP/2 forbids them).
      const out = endToEnd(up.headers)
      if (res instanceof http.ServerResponse) {
        res.writeHead(up.statusCode ?? 502, up.statusMessage, out)
        // a body of unknown length (server-sent events, a stream): its headers go out at once
        if (up.headers["content-length"] === undefined) res.flushHeaders()
      } else res.writeHead(up.statusCode ?? 502, out) // HTTP/2 sends them at once, with no reason phrase
      up.pipe(res)
      up.on("error", () => res.destroy())
    })
    upstream.on("error", (e) => {
      clearTimeout(timer)
      if (!res.writableEnded) sendFailure(req, res, unreachable(port, e))
    })
    // The client went away before the end: stop the daemon's side too.
    res.on("close", () => {
      clearTimeout(timer)
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  }

  const request = (req: Request, res: Response) => {
    whenRouted(
      routeRequest(req, options),
      (r) => (r._tag === "Failure" ? sendFailure(req, res, r) : forward(req, res, r)),
      (f) => sendFailure(req, res, f),
    )
  }

  const upgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy())
    whenRouted(
      routeRequest(req, options),
      (r) => {
        if (r._tag === "Failure") return socketFailure(req, socket, r)
        const headers = forwardHeaders(req.headers, {
          remoteAddress: req.socket.remoteAddress,
          host: r.host,
          proto: options.proto,
          hops: hopsOf(req.headers),
        })
        const upstream = net.connect({ host: r.address ?? DEFAULT_ADDRESS, port: r.port })
        upstream.on("connect", () => {
          upstream.write(
            upgradeRequestHead(req.method ?? "GET", req.url ?? "/", headers, req.headers.upgrade ?? ""),
          )
          if (head.length > 0) upstream.write(head)
          // The daemon's answer (101 and frames, or a refusal) goes back as it is.
          upstream.pipe(socket)
          socket.pipe(upstream)
        })
        upstream.on("error", (e) => {
          if (upstream.bytesRead === 0 && socket.writable) socketFailure(req, socket, unreachable(r.port, e))
          else socket.destroy()
        })
        upstream.on("close", () => socket.destroy())
        socket.on("close", () => upstream.destroy())
      },
      (f) => socketFailure(req, socket, f),
    )
  }

  return {
    request,
    upgrade,
    close: () => {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}
