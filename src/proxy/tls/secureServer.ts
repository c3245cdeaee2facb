import type { Server } from "node:net"
import type { ProxyHandler } from "../handler.js"

/** The HTTPS proxy server (local CA, a certificate per SNI name, HTTP/2): not available in this build. */
export const createSecureProxyServer = (
  _handler: ProxyHandler["request"],
  _upgrade: ProxyHandler["upgrade"],
  _stateDir: string,
): Server => {
  throw new Error("https proxy not available: set settings.proxy.https = false to serve the proxy over HTTP")
}
