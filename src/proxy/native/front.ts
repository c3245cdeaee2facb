// The native front (src/proxy/native/front.c) driven from the proxy's worker: it is spawned with
// the listener's address, asks here for each host it has not kept, and hands over what it does
// not relay itself on a local socket, where the worker's relay takes it (docs/proxy.md).
import { type ChildProcess, spawn } from "node:child_process"
import { createServer, type Server, type Socket } from "node:net"
import type { Duplex } from "node:stream"
import { threadId } from "node:worker_threads"
import { connectionCloser } from "../http1/plainServer.js"
import type { ProxyFailure } from "../pages.js"
import type { ProxyTarget } from "../route.js"
import { receiveHandOff } from "./handoff.js"

/** The answer to the front's `route`: targets to take in turn (kept until `forget`), or the worker's. */
export type FrontRouting =
  | { readonly _tag: "Targets"; readonly targets: ReadonlyArray<ProxyTarget>; readonly keep: boolean }
  /** The worker's relay takes the connection (`failure`: with this answer). */
  | { readonly _tag: "Worker"; readonly failure?: ProxyFailure | undefined }

export interface FrontOptions {
  readonly binary: string
  readonly host: string
  readonly port: number
  readonly idleTimeout: number
  readonly responseTimeout: number
  readonly route: (host: string, hops: number) => FrontRouting | Promise<FrontRouting>
  /** The worker's relay, for handed-off connections. */
  readonly relay: (socket: Socket) => void
  /** Drops the worker's kept targets (a kept target failed a request). */
  readonly forget: () => void
  /** HTTPS: the front terminates TLS with these, and hands HTTP/2 connections to `h2`. */
  readonly tls?: FrontTls | undefined
}

export interface FrontTls {
  /** The key of every leaf certificate (PEM). */
  readonly keyPem: string
  /** The certificate for a handshake without SNI, or a name the CA does not sign (PEM). */
  readonly fallbackPem: string
  /** The certificate of an SNI name (PEM); undefined: the fallback. */
  readonly certPem: (name: string) => Promise<string | undefined>
  readonly h2: (socket: Duplex) => void
}

/** A PEM on one control line: newlines as commas, spaces as underscores (neither is in a PEM). */
export const pemOnLine = (pem: string): string => pem.trim().replace(/\r?\n/g, ",").replace(/ /g, "_")

export interface FrontEvents {
  readonly listening: (port: number) => void
  /** It could not listen: `code` is EADDRINUSE, EACCES, ... */
  readonly failed: (code: string, message: string) => void
  readonly notAccepting: () => void
  /** The front and every connection it handed over have ended. */
  readonly closed: () => void
  /** It ended unasked (and was not started again). */
  readonly fault: (why: string) => void
  /** Something for the supervisor's log (it was started again). */
  readonly note: (text: string) => void
}

export interface Front {
  /** Take no more connections; the idle ones end, the others finish. */
  readonly stop: () => void
  /** End every connection now. */
  readonly close: () => void
  /** The worker's kept targets changed: the front's go too. */
  readonly forget: () => void
}

/** Unasked exits of the front in a minute that are met by starting it again. */
const RESTARTS = 5

/** How long a failure the front hands over waits for its connection. */
const KEPT_FAILURE_MS = 60_000

export const startFront = (options: FrontOptions, events: FrontEvents): Front => {
  const failures = new Map<number, ProxyFailure>()
  let lastToken = 0
  const keepFailure = (f: ProxyFailure): number => {
    const token = ++lastToken
    failures.set(token, f)
    setTimeout(() => failures.delete(token), KEPT_FAILURE_MS).unref()
    return token
  }
  const handOffs: Server = createServer({ allowHalfOpen: true }, (socket) =>
    receiveHandOff(socket, {
      relay: options.relay,
      h2: options.tls?.h2,
      forget: options.forget,
      kept: (token) => {
        const f = failures.get(token)
        failures.delete(token)
        return f
      },
      responseTimeout: options.responseTimeout,
    }),
  )
  const closeHandOffs = connectionCloser(handOffs)
  const name = `supervisor-proxy-${process.pid}-${threadId}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
  let child: ChildProcess | undefined
  let ending = false
  let exited = false
  /** The port it listens on, once it does. */
  let bound: number | undefined
  const write = (line: string) => {
    if (!exited) child?.stdin?.write(line)
  }
  const answer = (id: string, r: FrontRouting) => {
    if (r._tag === "Targets" && r.targets.length > 0)
      return write(
        `target ${id} ${r.keep ? 1 : 0} ${r.targets.map((t) => `${t.address ?? "127.0.0.1"} ${t.port}`).join(" ")}\n`,
      )
    return write(
      r._tag === "Worker" && r.failure !== undefined
        ? `node ${id} 2 ${keepFailure(r.failure)}\n`
        : `node ${id} 0 0\n`,
    )
  }
  const onLine = (line: string) => {
    const [word, a, b, ...rest] = line.split(" ")
    switch (word) {
      case "route": {
        if (a === undefined || b === undefined) return
        let routed: FrontRouting | Promise<FrontRouting>
        try {
          routed = options.route(rest.join(" "), Number(b))
        } catch {
          return answer(a, { _tag: "Worker" })
        }
        if (!(routed instanceof Promise)) return answer(a, routed)
        return void routed.then(
          (r) => answer(a, r),
          () => answer(a, { _tag: "Worker" }),
        )
      }
      case "cert": {
        const tls = options.tls
        if (a === undefined || b === undefined || tls === undefined) return
        return void tls.certPem(b).then(
          (pem) => write(`cert ${a} ${pem === undefined ? "-" : pemOnLine(pem)}\n`),
          () => write(`cert ${a} -\n`),
        )
      }
      case "listening":
        if (bound !== undefined) return
        bound = Number(a)
        return events.listening(bound)
      case "failed":
        ending = true
        // once it listened, a front started again that cannot is a fault of the proxy
        if (bound !== undefined)
          return events.fault(`the proxy's front could not listen again: ${[a, b, ...rest].join(" ")}`)
        return events.failed(a ?? "EOTHER", [b, ...rest].join(" "))
      case "notaccepting":
        return events.notAccepting()
    }
  }
  /** Unasked exits of late, to start it again (a fault of the proxy past RESTARTS a minute). */
  const exits: Array<number> = []
  const spawnFront = (port: number) => {
    const front = spawn(
      options.binary,
      [
        options.host,
        String(port),
        `@${name}`,
        String(options.idleTimeout),
        String(options.responseTimeout),
        ...(options.tls === undefined ? [] : ["tls"]),
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    )
    child = front
    exited = false
    // it listens over HTTPS once it has these
    if (options.tls !== undefined)
      write(`key ${pemOnLine(options.tls.keyPem)}\nfallback ${pemOnLine(options.tls.fallbackPem)}\n`)
    let pending = ""
    front.stdout!.setEncoding("latin1")
    front.stdout!.on("data", (text: string) => {
      pending += text
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        onLine(line)
      }
    })
    front.stdin!.on("error", () => {})
    front.on("error", (e) => {
      exited = true
      ending = true
      events.fault(`the proxy's front did not start: ${e.message}`)
    })
    front.on("exit", (code, signal) => {
      exited = true
      if (!ending) {
        const now = Date.now()
        exits.push(now)
        while (exits[0]! < now - 60_000) exits.shift()
        const how = signal ?? `code ${code}`
        if (bound !== undefined && exits.length <= RESTARTS) {
          events.note(`the proxy's front exited (${how}); started again on port ${bound}`)
          return spawnFront(bound)
        }
        ending = true
        events.fault(`the proxy's front exited (${how})`)
      }
      // what it handed over finishes in the worker's relay
      if (handOffs.listening) handOffs.close()
    })
  }
  handOffs.listen(`\0${name}`, () => spawnFront(options.port))
  handOffs.once("close", () => events.closed())
  return {
    stop: () => {
      ending = true
      write("stop\n")
    },
    close: () => {
      ending = true
      write("close\n")
      child?.kill("SIGTERM")
      if (handOffs.listening) handOffs.close()
      closeHandOffs()
    },
    forget: () => write("forget\n"),
  }
}
