import type { Server } from "node:net"
import { Console, Deferred, Effect, Exit, Ref, Runtime } from "effect"
import { HostInfo } from "../domain/HostInfo.js"
import { makeProxyHandler, RESPONSE_TIMEOUT } from "./handler.js"
import { createPlainProxyServer } from "./http1/plainServer.js"
import type { ProxyOptions } from "./options.js"
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

/** A proxy listener that is up: what a change of `[settings.proxy]` needs to replace it. */
export interface ProxyServing {
  /** Stops taking connections (at once: the port is free for the next listener). */
  readonly stopAccepting: Effect.Effect<void>
  /** Succeeds once every open connection has ended (they are closed when the scope closes). */
  readonly drained: Effect.Effect<void>
}

/**
 * The reverse proxy with these options (host/proxyListener.ts serves it while it is enabled),
 * until the scope closes (docs/proxy.md). A port in use or a server that cannot be made is said
 * in the supervisor's log and by `supervisor supervisor status`, and gives undefined; the
 * supervisor runs on.
 */
export const serveProxy = (options: ProxyOptions) =>
  Effect.gen(function* () {
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
    const made = yield* Effect.try(() => {
      if (!options.https) return createPlainProxyServer(handler, relayOptions)
      const secure = createSecureProxyServer(handler, host.stateDir, {
        tld: options.tld,
        relay: relayOptions,
      })
      if (secure.note !== undefined) console.error(`proxy: ${secure.note}`)
      return secure
    }).pipe(Effect.either)
    const notStarted = (why: string) =>
      Ref.update(host.listeners, (l) => ({
        ...l,
        proxy: undefined,
        proxyProblem: `not started: ${why}`,
      })).pipe(Effect.zipRight(Console.error(`proxy: not started: ${why}`)), Effect.as(undefined))
    if (made._tag === "Left") {
      const cause = made.left.error
      return yield* notStarted(cause instanceof Error ? cause.message : String(cause))
    }
    const { server, closeIdle, closeConnections } = made.right
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
    // `close` fires once the listener is closed and every connection has ended
    const closed = yield* Deferred.make<void>()
    server.once("close", () => Deferred.unsafeDone(closed, Exit.void))
    const stopAccepting = Effect.sync(() => {
      if (server.listening) server.close()
      closeIdle()
    })
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(
        Effect.sync(() => {
          handler.close()
          if (server.listening) server.close()
          closeConnections()
        }),
        Deferred.await(closed),
      ),
    )
    const scheme = options.https ? "https" : "http"
    const address = options.host.includes(":") ? `[${options.host}]` : options.host
    yield* Ref.update(host.listeners, (l) => {
      const { proxyProblem: _, ...rest } = l
      return { ...rest, proxy: `${scheme}://${address}:${bound.right}` }
    })
    yield* Console.error(
      `Proxy listening on ${scheme}://${options.host}:${bound.right} (<slug>.${options.tld}:${bound.right})`,
    )
    return { stopAccepting, drained: Deferred.await(closed) } satisfies ProxyServing
  })
