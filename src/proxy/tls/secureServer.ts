import * as http2 from "node:http2"
import type { Duplex } from "node:stream"
import * as tls from "node:tls"
import type { ProxyHandler } from "../handler.js"
import { connectionCloser, type ProxyListener, relayAcceptor } from "../http1/plainServer.js"
import type { RelayOptions } from "../http1/relay.js"
import { caNote, type LocalCa, loadOrCreateCa } from "./ca.js"
import { dropConnectionHeaders, http1Headers } from "./h2Compat.js"
import { type LeafCache, leafCache } from "./leaf.js"
import { answerPlainHttp } from "./plainHttpAnswer.js"

export interface SecureProxyOptions {
  /** The names signed: the tld and names under it (default "localhost"). */
  readonly tld?: string
  /** How HTTP/1.1 over TLS is relayed (the relay's options without its hand-off). */
  readonly relay: Omit<RelayOptions, "handOff">
}

export interface SecureProxyServer extends ProxyListener {
  readonly server: tls.Server
  readonly ca: LocalCa
  readonly leaves: LeafCache
  /** What to say in the daemon log about the CA (created, replaced), if anything. */
  readonly note: string | undefined
}

/** What serves a decrypted connection: the relay for HTTP/1.x, Node's HTTP/2 server for h2. */
export interface SecureParts {
  readonly ca: LocalCa
  readonly leaves: LeafCache
  readonly relay: ReturnType<typeof relayAcceptor>
  /** Takes a decrypted HTTP/2 connection. */
  readonly h2: (socket: Duplex) => void
  /** Asks HTTP/2 sessions to finish their streams and go (GOAWAY), and ends idle relayed ones. */
  readonly closeIdle: () => void
  /** Ends the HTTP/2 sessions now. */
  readonly closeSessions: () => void
}

/** The local CA, its leaves, and the servers behind TLS, wherever TLS is terminated (Node or the native front). */
export const secureParts = (
  handler: ProxyHandler,
  stateDir: string,
  options: SecureProxyOptions,
): SecureParts => {
  const ca = loadOrCreateCa(stateDir)
  const leaves = leafCache(ca, options.tld ?? "localhost")
  const relay = relayAcceptor(handler, options.relay)
  const h2 = http2.createServer({}, (req, res) => {
    http1Headers(req)
    dropConnectionHeaders(res)
    handler.request(req, res)
  })
  const sessions = new Set<http2.ServerHttp2Session>()
  h2.on("session", (session: http2.ServerHttp2Session) => {
    sessions.add(session)
    session.once("close", () => sessions.delete(session))
  })
  return {
    ca,
    leaves,
    relay,
    h2: (socket) => void h2.emit("connection", socket),
    closeIdle: () => {
      relay.closeIdle()
      for (const session of sessions) session.close()
    },
    closeSessions: () => {
      for (const session of sessions) session.destroy()
      sessions.clear()
    },
  }
}

/**
 * The HTTPS proxy: TLS with a certificate per SNI name from the local CA, ALPN offering h2, then
 * http/1.1 and http/1.0. A connection that chose HTTP/1.x (or no ALPN) goes through the same relay
 * as plain HTTP; an HTTP/2 one to Node's HTTP/2 server mounting `handler`, its requests and
 * responses made to look like HTTP/1.1 ones (src/proxy/tls/h2Compat.ts). Throws a CaError when
 * the CA cannot be created.
 */
export const createSecureProxyServer = (
  handler: ProxyHandler,
  stateDir: string,
  options: SecureProxyOptions,
): SecureProxyServer => {
  const parts = secureParts(handler, stateDir, options)
  const { ca, leaves, relay } = parts
  const server = tls.createServer(
    {
      // as the plain listener: a client's half-close still gets the responses it waits for
      allowHalfOpen: true,
      noDelay: true,
      // a handshake without SNI (an IP address) gets the tld's certificate
      ...leaves.fallbackPem,
      // http/1.0 too: a client offering only that (curl --http1.0) would fail the handshake
      ALPNProtocols: ["h2", "http/1.1", "http/1.0"],
      SNICallback: (name, cb) =>
        leaves.context(name).then(
          (ctx) => cb(null, ctx),
          (e: unknown) => cb(e instanceof Error ? e : new Error(String(e))),
        ),
    },
    (socket) => (socket.alpnProtocol === "h2" ? parts.h2(socket) : relay.accept(socket)),
  )
  // plain HTTP sent here is told to use https:// rather than getting an empty reply
  answerPlainHttp(server)
  // after answerPlainHttp, which moves the connection listeners there were
  const closeAll = connectionCloser(server)
  return {
    server,
    ca,
    leaves,
    note: caNote(ca),
    closeIdle: parts.closeIdle,
    closeConnections: () => {
      parts.closeSessions()
      closeAll()
    },
  }
}
