// Entry of dist/proxy-worker.cjs: the reverse proxy's listener, relay and TLS in a worker thread
// of the supervisor (docs/proxy.md). Its own heap and event loop: the relay's young-generation
// collections do not scan the supervisor's heap, and its requests do not wait behind the
// supervisor's work (docs/benchmarks.md, "The reverse proxy"). Daemons are resolved by the
// supervisor, over the worker's port (protocol.ts).
import { parentPort, workerData } from "node:worker_threads"
import { makeProxyHandler, type Resolution } from "../handler.js"
import { createPlainProxyServer } from "../http1/plainServer.js"
import { failure } from "../pages.js"
import { createSecureProxyServer } from "../tls/secureServer.js"
import type { FromWorker, ToWorker, WorkerSetup } from "./protocol.js"
import { targetCache } from "./targetCache.js"

const setup = workerData as WorkerSetup
const port = parentPort!
const post = (message: FromWorker) => port.postMessage(message)

const cache = targetCache()
/** Resolutions asked of the supervisor: by id, and by key so that concurrent requests share one. */
const waiting = new Map<number, { readonly key: string; readonly done: (r: Resolution) => void }>()
const inFlight = new Map<string, Promise<Resolution>>()
let lastId = 0

const resolve = (slug: string, worktree?: string): Resolution | Promise<Resolution> => {
  // one key per slug and worktree (not a host label: a label never holds a space)
  const key = worktree === undefined ? slug : `${slug} ${worktree}`
  const hit = cache.next(key)
  if (hit !== undefined) return hit
  const flying = inFlight.get(key)
  if (flying !== undefined) return flying
  const asked = new Promise<Resolution>((done) => {
    const id = ++lastId
    waiting.set(id, { key, done })
    post({ _tag: "Resolve", id, slug, worktree })
  })
  inFlight.set(key, asked)
  return asked
}

const routeOptions = {
  tld: setup.tld,
  proto: setup.https ? ("https" as const) : ("http" as const),
  resolve,
  // a kept target refused a request: the supervisor may know better (an instance stopped, and
  // its Forget is not here yet)
  forget: () => cache.clear(),
}
const handler = makeProxyHandler(routeOptions)
const relay = { ...routeOptions, responseTimeout: setup.responseTimeout, idleTimeout: setup.idleTimeout }

const made = (() => {
  try {
    if (!setup.https) return createPlainProxyServer(handler, relay)
    const secure = createSecureProxyServer(handler, setup.stateDir, { tld: setup.tld, relay })
    if (secure.note !== undefined) post({ _tag: "Note", text: secure.note })
    return secure
  } catch (e) {
    post({ _tag: "NotStarted", why: e instanceof Error ? e.message : String(e) })
    return undefined
  }
})()

if (made === undefined) port.close()
else {
  const { server, closeIdle, closeConnections } = made
  const onListenError = (e: NodeJS.ErrnoException) => {
    handler.close()
    post({
      _tag: "NotStarted",
      why:
        e.code === "EADDRINUSE"
          ? `port ${setup.port} on ${setup.host} is in use; choose another with settings.proxy.port (0 picks a free one)`
          : `cannot listen on ${setup.host}:${setup.port}: ${e.message}`,
    })
    port.close()
  }
  server.once("error", onListenError)
  server.listen({ host: setup.host, port: setup.port }, () => {
    server.off("error", onListenError)
    const address = server.address()
    post({
      _tag: "Listening",
      port: typeof address === "object" && address !== null ? address.port : setup.port,
    })
  })
  // `close` fires once the listener is closed and every connection has ended
  server.once("close", () => {
    post({ _tag: "Closed" })
    port.close()
  })
  port.on("message", (message: ToWorker) => {
    switch (message._tag) {
      case "Resolved": {
        const asked = waiting.get(message.id)
        if (asked === undefined) return
        waiting.delete(message.id)
        inFlight.delete(asked.key)
        const { targets } = message
        if (targets !== undefined && targets.length > 0)
          return asked.done(cache.take(asked.key, targets, message.cacheable))
        return asked.done(message.failure ?? failure(502, "Bad Gateway", ["The daemon serves no port."]))
      }
      case "Forget":
        return cache.clear()
      case "StopAccepting":
        if (server.listening) server.close()
        closeIdle()
        return post({ _tag: "NotAccepting" })
      case "Close":
        handler.close()
        if (server.listening) server.close()
        return closeConnections()
    }
  })
}
