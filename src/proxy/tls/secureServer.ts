import type * as http from "node:http"
import * as http2 from "node:http2"
import type * as net from "node:net"
import { caNote, type LocalCa, loadOrCreateCa } from "./ca.js"
import { dropConnectionHeaders, http1Headers } from "./h2Compat.js"
import { type LeafCache, leafCache } from "./leaf.js"
import { answerPlainHttp } from "./plainHttpAnswer.js"

/** A request handler served over HTTP/2 (browsers) and HTTP/1.1 (curl, tools) alike. */
export type ProxyRequestHandler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void

/** An HTTP/1.1 `Upgrade` (WebSocket) handler: browsers open WebSockets on HTTP/1.1 connections. */
export type ProxyUpgradeHandler = (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => void

export interface SecureProxyOptions {
  /** The names signed: the tld and names under it (default "localhost"). */
  readonly tld?: string
}

export interface SecureProxyServer {
  readonly server: http2.Http2SecureServer
  readonly ca: LocalCa
  readonly leaves: LeafCache
  /** What to say in the daemon log about the CA (created, replaced), if anything. */
  readonly note: string | undefined
}

/**
 * An HTTPS server for the proxy: TLS with a certificate per SNI name from the local CA, ALPN
 * offering h2 then http/1.1. HTTP/2 requests and responses are made to look like HTTP/1.1 ones
 * (src/proxy/tls/h2Compat.ts) so that one handler serves both protocols. Throws a CaError
 * when the CA cannot be created.
 */
export const createSecureProxyServer = (
  handler: ProxyRequestHandler,
  upgrade: ProxyUpgradeHandler,
  stateDir: string,
  options: SecureProxyOptions = {},
): SecureProxyServer => {
  const ca = loadOrCreateCa(stateDir)
  const leaves = leafCache(ca, options.tld ?? "localhost")
  const server = http2.createSecureServer(
    {
      allowHTTP1: true,
      // a handshake without SNI (an IP address) gets the tld's certificate
      ...leaves.fallbackPem,
      ALPNProtocols: ["h2", "http/1.1"],
      SNICallback: (name, cb) =>
        leaves.context(name).then(
          (ctx) => cb(null, ctx),
          (e: unknown) => cb(e instanceof Error ? e : new Error(String(e))),
        ),
    },
    (req, res) => {
      if (isHttp2(req, res)) {
        http1Headers(req)
        dropConnectionHeaders(res)
      }
      handler(req, res)
    },
  )
  // HTTP/1.1 connections of an allowHTTP1 server emit 'upgrade' as an http.Server does
  server.on("upgrade", upgrade)
  // plain HTTP sent here is told to use https:// rather than getting an empty reply
  answerPlainHttp(server)
  return { server, ca, leaves, note: caNote(ca) }
}

const isHttp2 = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
): res is http2.Http2ServerResponse => req.httpVersionMajor === 2 && res instanceof http2.Http2ServerResponse
