import * as http from "node:http"
import { createServer, type Server, type Socket } from "node:net"
import type { ProxyHandler } from "../handler.js"
import { type RelayOptions, relayConnection } from "./relay.js"

/** Connections given to the relay, and Node's HTTP server for those it hands off. */
export interface RelayAcceptor {
  /** Relays one accepted connection (plain, or TLS once its handshake chose HTTP/1.1). */
  readonly accept: (socket: Socket) => void
  /** Ends the idle connections of Node's server (the relay closes its own after `idleTimeout`). */
  readonly closeIdle: () => void
}

/**
 * The relay (src/proxy/http1/relay.ts) with its fallback: a Node HTTP server mounting `handler`,
 * which gets what the relay does not handle itself (HTTP/1.0, upgrades, odd framing).
 */
export const relayAcceptor = (
  handler: ProxyHandler,
  options: Omit<RelayOptions, "handOff">,
): RelayAcceptor => {
  const fallback = http.createServer({ keepAlive: true }, handler.request)
  fallback.on("upgrade", handler.upgrade)
  const handOff = (socket: Socket) => void fallback.emit("connection", socket)
  return {
    accept: (socket) => relayConnection(socket, { ...options, handOff }),
    closeIdle: () => fallback.closeIdleConnections(),
  }
}

/**
 * Ends every connection `server` accepted and that is still open, whoever has it now (the relay,
 * Node's HTTP or HTTP/2 server, a WebSocket tunnel, a TLS handshake): a listener's scope closes
 * only once they are gone.
 */
export const connectionCloser = (server: Server): (() => void) => {
  const open = new Set<Socket>()
  server.on("connection", (socket: Socket) => {
    open.add(socket)
    socket.once("close", () => open.delete(socket))
  })
  return () => {
    for (const socket of open) socket.destroy()
    open.clear()
  }
}

/** A proxy listener, plain or TLS, as src/proxy/server.ts serves and closes it. */
export interface ProxyListener extends Omit<RelayAcceptor, "accept"> {
  readonly server: Server
  /** Ends every open connection. */
  readonly closeConnections: () => void
}

/** The plain-HTTP proxy: each connection goes through the relay. */
export const createPlainProxyServer = (
  handler: ProxyHandler,
  options: Omit<RelayOptions, "handOff">,
): ProxyListener => {
  const { accept, closeIdle } = relayAcceptor(handler, options)
  const server = createServer({ allowHalfOpen: true, noDelay: true, keepAlive: true }, accept)
  return { server, closeIdle, closeConnections: connectionCloser(server) }
}
