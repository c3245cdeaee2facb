import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import * as os from "node:os"
import type { Duplex } from "node:stream"
import { Data, Effect } from "effect"
import { jsonClientErrors } from "../api/clientErrors.js"
import { PromptResponse } from "./promptResponse.js"
import { withUpgrades } from "./upgrades.js"

/** How many ports a listener tries (the configured one, then the next ones) when one is busy, by default. */
export const PORT_ATTEMPTS = 10

export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string }> {}

export const isLoopback = (address: string): boolean =>
  address === "localhost" || address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address)

/** The spec's warning for a listener reachable from other hosts. */
export const PLAIN_HTTP_WARNING =
  "warning: this listener is not on loopback and serves plain HTTP. A direct non-loopback request sends the token unencrypted, so anyone who can observe the traffic can capture and reuse it to control the supervisor. Put an HTTPS reverse proxy on this host in front of it and keep the backend on loopback."

const withPort = (host: string, port: number) =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`

/**
 * The Host header values a listener answers (DNS-rebinding protection): the loopback names,
 * and for a non-loopback bind its address, or every local address and the host name for a
 * wildcard bind.
 */
export const allowedHosts = (address: string, port: number, tls = false): ReadonlySet<string> => {
  const hosts = new Set(["127.0.0.1", "localhost", "::1", address])
  // an HTTPS listener's certificate names the host: a client reaches it by that name
  if (tls) hosts.add(os.hostname())
  if (address === "0.0.0.0" || address === "::") {
    hosts.add(os.hostname())
    for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) hosts.add(i.address)
  }
  return new Set([...hosts].map((h) => withPort(h, port).toLowerCase()))
}

const listenOnce = (server: Server, host: string, port: number) =>
  new Promise<number>((resolve, reject) => {
    const onError = (e: Error) => {
      server.off("listening", onListening)
      reject(e)
    }
    const onListening = () => {
      server.off("error", onError)
      const address = server.address()
      resolve(typeof address === "object" && address !== null ? address.port : port)
    }
    server.once("error", onError)
    server.once("listening", onListening)
    server.listen({ host, port })
  })

/**
 * A Node HTTP server on `host:port` running `handler`, closed with the scope; HTTPS with `tls`'s
 * key and certificate. A busy port moves on to the next ones (`portAttempts` in all); port 0 lets
 * the OS pick. Resolves the bound port.
 */
export const listen = (
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
  tls?: { readonly key: string; readonly cert: string },
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  portAttempts = PORT_ATTEMPTS,
) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        // https (and TLS with it) loaded for an HTTPS listener only
        const created: Server = jsonClientErrors(
          tls === undefined
            ? createServer({ ServerResponse: PromptResponse }, handler)
            : (await import("node:https")).createServer(
                { key: tls.key, cert: tls.cert, ServerResponse: PromptResponse },
                handler,
              ),
        )
        const server = upgrade === undefined ? created : withUpgrades(created, upgrade)
        const attempts = port === 0 ? 1 : portAttempts
        let last: unknown
        for (let i = 0; i < attempts && port + i <= 65535; i++) {
          try {
            return { server, port: await listenOnce(server, host, port + i) }
          } catch (e) {
            last = e
            if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") break
          }
        }
        throw last
      },
      catch: (e) => {
        const code = (e as NodeJS.ErrnoException).code
        return new ListenError({
          message:
            code === "EADDRINUSE"
              ? portAttempts === 1 || port === 0
                ? `port ${port} on ${host} is in use; choose another port (0 picks a free one), or let the listener try the next ones (port_attempts)`
                : `ports ${port} to ${Math.min(port + portAttempts - 1, 65535)} on ${host} are all in use; choose another port (0 picks a free one)`
              : `cannot listen on ${withPort(host, port)}: ${e instanceof Error ? e.message : String(e)}`,
        })
      },
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
      }),
  ).pipe(
    Effect.map(({ port: bound }) => ({
      port: bound,
      url: `${tls === undefined ? "http" : "https"}://${withPort(host, bound)}`,
    })),
  )
