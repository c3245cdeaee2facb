import * as http from "node:http"
import type { Server } from "node:net"
import { Console, Effect, Layer, Ref, Runtime } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { HostInfo } from "../domain/HostInfo.js"
import { makeProxyHandler, RESPONSE_TIMEOUT } from "./handler.js"
import { createPlainProxyServer } from "./http1/plainServer.js"
import { proxyOptions } from "./options.js"
import { makeResolver } from "./targets.js"
import { createSecureProxyServer } from "./tls/secureServer.js"

/** How long an idle client connection of the relay stays open: Node's HTTP server keeps 5 s too. */
const IDLE_TIMEOUT = 5_000

const listenOn = (server: Server, host: string, port: number) =>
  Effect.async<number, Error>((resume) => {
    const onError = (e: Error) => resume(Effect.fail(e))
    server.once("error", onError)
    server.listen({ host, port }, () => {
      server.off("error", onError)
      const address = server.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
    })
  })

/**
 * The reverse proxy, served when `settings.proxy.enable` is on (docs/proxy.md). A port in use
 * or a server that cannot be made is said in the supervisor's log; the supervisor runs on.
 */
export const ProxyListener = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { settings } = yield* SupervisorConfig
    const options = proxyOptions(settings)
    if (!options.enable) return
    const host = yield* HostInfo
    const lookup = yield* makeResolver(options)
    const runtime = yield* Effect.runtime<never>()
    const routeOptions = {
      tld: options.tld,
      proto: options.https ? ("https" as const) : ("http" as const),
      resolve: (slug: string, worktree?: string) => {
        const found = lookup(slug, worktree)
        return Effect.isEffect(found) ? Runtime.runPromise(runtime)(found) : found
      },
    }
    const handler = makeProxyHandler(routeOptions)
    const relayOptions = { ...routeOptions, responseTimeout: RESPONSE_TIMEOUT, idleTimeout: IDLE_TIMEOUT }
    let closeConnections = () => {}
    const made = yield* Effect.try(() => {
      if (options.https) {
        const secure = createSecureProxyServer(handler.request, handler.upgrade, host.stateDir, {
          tld: options.tld,
        })
        if (secure.note !== undefined) console.error(`proxy: ${secure.note}`)
        return secure.server
      }
      const plain = createPlainProxyServer(handler, relayOptions)
      closeConnections = plain.closeConnections
      const server = plain.server
      return server
    }).pipe(Effect.either)
    /** Said in the supervisor's log and by `supervisor supervisor status`; the supervisor runs on. */
    const notStarted = (why: string) =>
      Ref.update(host.listeners, (l) => ({ ...l, proxyProblem: `not started: ${why}` })).pipe(
        Effect.zipRight(Console.error(`proxy: not started: ${why}`)),
      )
    if (made._tag === "Left") {
      const cause = made.left.error
      return yield* notStarted(cause instanceof Error ? cause.message : String(cause))
    }
    const server = made.right
    const bound = yield* listenOn(server, options.host, options.port).pipe(Effect.either)
    if (bound._tag === "Left") {
      const e = bound.left as NodeJS.ErrnoException
      handler.close()
      return yield* notStarted(
        e.code === "EADDRINUSE"
          ? `port ${options.port} on ${options.host} is in use; choose another with settings.proxy.port (0 picks a free one)`
          : `cannot listen on ${options.host}:${options.port}: ${e.message}`,
      )
    }
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        handler.close()
        server.close(() => resume(Effect.void))
        if (server instanceof http.Server) server.closeAllConnections()
        closeConnections()
      }),
    )
    const scheme = options.https ? "https" : "http"
    const address = options.host.includes(":") ? `[${options.host}]` : options.host
    yield* Ref.update(host.listeners, (l) => ({ ...l, proxy: `${scheme}://${address}:${bound.right}` }))
    yield* Console.error(
      `Proxy listening on ${scheme}://${options.host}:${bound.right} (<slug>.${options.tld}:${bound.right})`,
    )
  }),
)
