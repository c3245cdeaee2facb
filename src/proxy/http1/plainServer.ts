import * as http from "node:http"
import { createServer, type Server, type Socket } from "node:net"
import type { ProxyHandler } from "../handler.js"
import { type RelayOptions, relayConnection } from "./relay.js"

export interface PlainProxyServer {
  readonly server: Server
  /** Ends every open connection (the listener itself is closed by its owner). */
  readonly closeConnections: () => void
}

/**
 * The plain-HTTP proxy: each connection goes through the relay (src/proxy/http1/relay.ts), which
 * gives what it does not handle itself (HTTP/1.0, upgrades, odd framing) to a Node HTTP server
 * mounting `handler`.
 */
export const createPlainProxyServer = (
  handler: ProxyHandler,
  options: Omit<RelayOptions, "handOff">,
): PlainProxyServer => {
  const fallback = http.createServer({ keepAlive: true }, handler.request)
  fallback.on("upgrade", handler.upgrade)
  const relayed = new Set<Socket>()
  const handOff = (socket: Socket) => {
    relayed.delete(socket)
    fallback.emit("connection", socket)
  }
  const server = createServer({ allowHalfOpen: true, noDelay: true, keepAlive: true }, (socket) => {
    relayed.add(socket)
    socket.once("close", () => relayed.delete(socket))
    relayConnection(socket, { ...options, handOff })
  })
  return {
    server,
    closeConnections: () => {
      for (const socket of relayed) socket.destroy()
      relayed.clear()
      fallback.closeAllConnections()
    },
  }
}
