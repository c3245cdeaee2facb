// Entry of dist/proxy-worker.cjs: the reverse proxy in a worker thread of the supervisor
// (docs/proxy.md). Its listener and TLS are the native front's (native/front.ts) where it is built,
// else this thread's; the relay and Node's HTTP and HTTP/2 servers here take what the front hands
// over. Its own heap and event loop: the relay's young-generation collections do not scan the
// supervisor's heap, and its requests do not wait behind the supervisor's work. Daemons are
// resolved by the supervisor, over the worker's port (protocol.ts).
import { isIP } from "node:net"
import { parentPort, workerData } from "node:worker_threads"
import { makeProxyHandler, type Resolution } from "../handler.js"
import { MAX_HOPS, namesOfHost } from "../headers.js"
import { createPlainProxyServer, relayAcceptor } from "../http1/plainServer.js"
import { type FrontRouting, startFront } from "../native/front.js"
import { frontBinary } from "../native/frontBinary.js"
import { failure } from "../pages.js"
import { caNote } from "../tls/ca.js"
import { createSecureProxyServer, secureParts } from "../tls/secureServer.js"
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

/** One key per slug and worktree (not a host label: a label never holds a space). */
const keyOf = (slug: string, worktree: string | undefined) =>
  worktree === undefined ? slug : `${slug} ${worktree}`

const resolve = (slug: string, worktree?: string): Resolution | Promise<Resolution> => {
  const key = keyOf(slug, worktree)
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
  forget: () => forgetKept(),
}
const handler = makeProxyHandler(routeOptions)
const relay = { ...routeOptions, responseTimeout: setup.responseTimeout, idleTimeout: setup.idleTimeout }

/**
 * The listener, the relay and TLS in Node: without the native front (not built,
 * SUPERVISOR_PROXY_FRONT=node, a host that is no IP address, or HTTPS and a front without TLS).
 */
const nodeListener = () => {
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
  if (made === undefined) return void port.close()
  const { server, closeIdle, closeConnections } = made
  const onListenError = (e: NodeJS.ErrnoException) => notListening(e.code, e.message)
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
  control = {
    stopAccepting: () => {
      if (server.listening) server.close()
      closeIdle()
      post({ _tag: "NotAccepting" })
    },
    close: () => {
      if (server.listening) server.close()
      closeConnections()
    },
    forget: () => {},
  }
}

/**
 * The native front (src/proxy/native/front.c) as the listener, and TLS's terminator over HTTPS;
 * what it hands over goes to the relay (or Node's HTTP/2 server). A front built without TLS
 * leaves HTTPS to `nodeListener`.
 */
const frontListener = (binary: string) => {
  const secure = (() => {
    if (!setup.https) return undefined
    try {
      const parts = secureParts(handler, setup.stateDir, { tld: setup.tld, relay })
      const note = caNote(parts.ca)
      if (note !== undefined) post({ _tag: "Note", text: note })
      return parts
    } catch (e) {
      post({ _tag: "NotStarted", why: e instanceof Error ? e.message : String(e) })
      return null
    }
  })()
  if (secure === null) return void port.close()
  let replaced = false
  const { accept, closeIdle: closeIdleRelayed } = secure?.relay ?? relayAcceptor(handler, relay)
  // over HTTPS its HTTP/2 sessions are asked to go too
  const closeIdle = secure?.closeIdle ?? closeIdleRelayed
  const front = startFront(
    {
      binary,
      host: setup.host,
      port: setup.port,
      idleTimeout: setup.idleTimeout,
      responseTimeout: setup.responseTimeout,
      route: frontRoute,
      relay: accept,
      forget: () => forgetKept(),
      tls:
        secure === undefined
          ? undefined
          : {
              keyPem: secure.leaves.keyPem,
              fallbackPem: secure.leaves.fallbackPem.cert,
              certPem: secure.leaves.certPem,
              h2: secure.h2,
            },
    },
    {
      listening: (bound) => post({ _tag: "Listening", port: bound }),
      // a front without TLS: Node terminates it
      failed: (code, message) => {
        if (code !== "ENOTLS") return notListening(code, message)
        replaced = true
        nodeListener()
      },
      notAccepting: () => {
        closeIdle()
        post({ _tag: "NotAccepting" })
      },
      closed: () => {
        if (replaced) return
        post({ _tag: "Closed" })
        port.close()
      },
      note: (text) => post({ _tag: "Note", text }),
      // a fault of the worker: the supervisor says it and ends the proxy
      fault: (why) =>
        setImmediate(() => {
          throw new Error(why)
        }),
    },
  )
  control = {
    stopAccepting: front.stop,
    close: () => {
      secure?.closeSessions()
      front.close()
    },
    forget: front.forget,
  }
}

/** The targets of a host the front asks for, or the worker's relay to take its connection. */
const frontRoute = (host: string, hops: number): FrontRouting | Promise<FrontRouting> => {
  const { slug, worktree } = namesOfHost(host, setup.tld)
  if (slug === undefined || hops >= MAX_HOPS) return TO_WORKER
  const key = keyOf(slug, worktree)
  const kept = cache.peek(key)
  if (kept !== undefined) return { _tag: "Targets", targets: kept, keep: true }
  const then = (r: Resolution): FrontRouting => {
    if (r._tag === "Failure") return { _tag: "Worker", failure: r }
    const now = cache.peek(key)
    return { _tag: "Targets", targets: now ?? [r], keep: now !== undefined }
  }
  const resolved = resolve(slug, worktree)
  return resolved instanceof Promise ? resolved.then(then) : then(resolved)
}
const TO_WORKER: FrontRouting = { _tag: "Worker" }

const notListening = (code: string | undefined, message: string) => {
  handler.close()
  post({
    _tag: "NotStarted",
    why:
      code === "EADDRINUSE"
        ? `port ${setup.port} on ${setup.host} is in use; choose another with settings.proxy.port (0 picks a free one)`
        : `cannot listen on ${setup.host}:${setup.port}: ${message}`,
  })
  port.close()
}

/** What the supervisor's Forget, StopAccepting and Close do to the listener. */
interface Control {
  readonly stopAccepting: () => void
  readonly close: () => void
  readonly forget: () => void
}
/** The listener's answers to the supervisor's messages (the last one given). */
let control: Control | undefined
/** Drops the kept targets, here and in the front. */
const forgetKept = () => {
  cache.clear()
  control?.forget()
}

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
      return forgetKept()
    case "StopAccepting":
      return control?.stopAccepting()
    case "Close":
      handler.close()
      return control?.close()
  }
})

const front = frontBinary()
if (front !== undefined && isIP(setup.host) !== 0) frontListener(front)
else nodeListener()
