import { STATUS_CODES } from "node:http"
import * as net from "node:net"
import { HOPS_HEADER } from "../headers.js"
import { failure, type ProxyFailure, renderFailure } from "../pages.js"
import {
  DEFAULT_ADDRESS,
  type Routed,
  type RouteOptions,
  type Routing,
  route,
  unreachable,
} from "../route.js"
import { type BodyFraming, ChunkedBody, LengthBody } from "./body.js"
import { HEAD_END, MAX_HEAD, parseRequestHead, parseResponseHead, type RequestHead } from "./head.js"
import { replayable } from "./retry.js"

export interface RelayOptions extends RouteOptions {
  readonly proto: "http" | "https"
  /** How long the daemon may take to start a response before a 504. */
  readonly responseTimeout: number
  /** How long an idle client connection is kept open (Node's keep-alive timeout is 5 s). */
  readonly idleTimeout: number
  /** Gives a connection to Node's HTTP server, with the bytes read so far pushed back into it. */
  readonly handOff: (socket: net.Socket) => void
}

/** A response head longer than this is not followed: the connection then ends with the daemon's. */
const MAX_RESPONSE_HEAD = 64 * 1024

/** `a` then `b`, either of which may be missing. */
const concat = (a: Buffer | undefined, b: Buffer | undefined): Buffer | undefined =>
  a === undefined ? b : b === undefined ? a : Buffer.concat([a, b])

/**
 * One client connection relayed to a daemon over one connection of its own. Request heads are
 * read and rewritten (hop-by-hop headers dropped, X-Forwarded-* and the hop count set); bodies
 * and responses are relayed as they are, their framing followed only to know where each message
 * ends. Anything unusual (HTTP/1.0, upgrades, odd framing, a long head) is given, once no
 * response is outstanding, to Node's HTTP server and the handler of src/proxy/handler.ts.
 */
class Relay {
  private backend: net.Socket | undefined
  private backendKey = ""
  private backendError: (Error & { code?: string }) | undefined
  private target: Routed | undefined
  /** Client bytes not relayed yet: a partial head, or what came while the relay waited. */
  private input: Buffer | undefined
  /** The body of the request being relayed. */
  private body: BodyFraming | undefined
  /** The requests sent and not answered yet, oldest first. */
  private readonly pending: RequestHead[] = []
  /** What was sent of each pending request, when it may be sent again (`replayable`). */
  private readonly replays: Array<string | undefined> = []
  /** Responses the daemon's current connection carried: a kept-alive one has at least one. */
  private answered = 0
  /** The pending requests were routed again once (`reroute`) and not answered since. */
  private rerouted = false
  /** A partial response head. */
  private responseHead: Buffer | undefined
  /** The body of the response being relayed; "close" runs to the end of the connection. */
  private responseBody: BodyFraming | "close" | undefined
  /** Bytes of the oldest outstanding response have arrived. */
  private responding = false
  /** Waiting for a routing, or for the outstanding responses before `onQuiet`. */
  private suspended = false
  private onQuiet: (() => boolean) | undefined
  private backendFull = false
  private clientFull = false
  private clientEnded = false
  /** Bytes of both sides relayed as they are (after a 101). */
  private tunnel = false
  private done = false
  private readonly remote: string

  constructor(
    private readonly client: net.Socket,
    private readonly options: RelayOptions,
  ) {
    this.remote = (client.remoteAddress ?? "").replace(/^::ffff:/, "")
    client.setNoDelay(true)
    client.setTimeout(options.idleTimeout)
    client.on("data", this.onClientData)
    client.on("end", this.onClientEnd)
    client.on("timeout", this.onClientIdle)
    client.on("error", this.onClientClose)
    client.on("close", this.onClientClose)
    client.on("drain", this.onClientDrain)
  }

  private readonly onClientData = (chunk: Buffer) => {
    if (this.done) return
    if (this.tunnel) return this.toBackend(chunk)
    this.input = concat(this.input, chunk)
    if (!this.suspended) this.pump()
  }

  /** Relays the requests in `input` until it runs out, or the relay must wait. */
  private pump() {
    const buf = this.input
    if (buf === undefined) return
    this.input = undefined
    let off = 0
    const corked = this.backend
    corked?.cork()
    try {
      while (off < buf.length && !this.done) {
        if (this.body !== undefined) {
          const n = this.body.feed(buf, off)
          if (n < 0) return this.destroy()
          this.toBackend(buf.subarray(off, off + n))
          off += n
          if (this.body.done) this.body = undefined
          continue
        }
        const end = buf.indexOf(HEAD_END, off)
        if (end < 0) {
          if (buf.length - off > MAX_HEAD) return this.handOff(buf.subarray(off))
          this.input = buf.subarray(off)
          return
        }
        const head = parseRequestHead(buf, off, end)
        if (head._tag === "Other") return this.handOff(buf.subarray(off))
        off = end + HEAD_END.length
        const routing = route(head.host, head.hops, this.options)
        if (routing instanceof Promise) {
          this.input = buf.subarray(off)
          this.suspend()
          routing.then(
            (r) => this.resume(() => this.apply(head, r)),
            (e: unknown) => this.resume(() => this.apply(head, failure(500, "Proxy Error", [String(e)]))),
          )
          return
        }
        if (!this.apply(head, routing)) {
          this.input = concat(buf.subarray(off), this.input)
          return
        }
      }
    } finally {
      corked?.uncork()
    }
  }

  /** Sends a routed request, or waits to answer it; false when the relay must stop reading. */
  private apply(head: RequestHead, r: Routing): boolean {
    if (r._tag === "Failure") return this.whenQuiet(() => this.answer(head, r))
    const key = `${r.address ?? DEFAULT_ADDRESS} ${r.port}`
    if (this.backend !== undefined && key !== this.backendKey)
      return this.whenQuiet(() => {
        this.dropBackend()
        return this.send(head, r, key)
      })
    return this.send(head, r, key)
  }

  private send(head: RequestHead, r: Routed, key: string): boolean {
    if (this.backend === undefined) this.connect(r, key)
    const forwardedFor =
      head.forwardedFor === undefined ? this.remote : `${head.forwardedFor}, ${this.remote}`
    const wire = `${head.kept}\r\nx-forwarded-for: ${forwardedFor}\r\nx-forwarded-host: ${head.host}\r\nx-forwarded-proto: ${this.options.proto}\r\n${HOPS_HEADER}: ${head.hops + 1}\r\n\r\n`
    this.toBackend(wire)
    this.pending.push(head)
    this.replays.push(replayable(head) ? wire : undefined)
    this.body =
      head.body === "chunked" ? new ChunkedBody() : head.body > 0 ? new LengthBody(head.body) : undefined
    return true
  }

  private connect(r: Routed, key: string) {
    const backend = net.connect({ host: r.address ?? DEFAULT_ADDRESS, port: r.port, noDelay: true })
    this.backend = backend
    this.backendKey = key
    this.backendError = undefined
    this.target = r
    this.answered = 0
    backend.setTimeout(this.options.responseTimeout)
    backend.on("data", (chunk: Buffer) => {
      if (this.backend === backend) this.onBackendData(chunk)
    })
    backend.on("timeout", () => {
      if (this.backend === backend) this.onBackendIdle()
    })
    backend.on("drain", () => {
      this.backendFull = false
      this.flow()
    })
    backend.on("error", (e) => {
      this.backendError = e
    })
    backend.on("close", () => {
      if (this.backend === backend) this.onBackendClose()
    })
  }

  private toBackend(data: Buffer | string) {
    const backend = this.backend
    if (backend === undefined) return
    if (!(typeof data === "string" ? backend.write(data, "latin1") : backend.write(data))) {
      this.backendFull = true
      this.flow()
    }
  }

  private onBackendData(chunk: Buffer) {
    if (this.tunnel) return this.toClient(chunk)
    this.client.cork()
    this.follow(chunk)
    this.client.uncork()
  }

  private toClient(data: Buffer | string) {
    if (!(typeof data === "string" ? this.client.write(data, "latin1") : this.client.write(data))) {
      this.clientFull = true
      this.backend?.pause()
    }
  }

  /**
   * Relays responses, following their framing to know when each one ends; a head loses the
   * daemon's connection headers (the client's connection is the relay's own).
   */
  private follow(chunk: Buffer) {
    let buf = chunk
    if (this.responseHead !== undefined) {
      buf = Buffer.concat([this.responseHead, chunk])
      this.responseHead = undefined
    }
    let off = 0
    while (off < buf.length) {
      const body = this.responseBody
      if (body === "close") return this.toClient(buf.subarray(off))
      if (body !== undefined) {
        const n = body.feed(buf, off)
        if (n < 0) {
          this.responseBody = "close"
          continue
        }
        this.toClient(buf.subarray(off, off + n))
        off += n
        if (body.done) {
          this.responseBody = undefined
          this.responseDone()
        }
        continue
      }
      this.responding = true
      const end = buf.indexOf(HEAD_END, off)
      if (end < 0) {
        if (buf.length - off <= MAX_RESPONSE_HEAD) this.responseHead = buf.subarray(off)
        else {
          this.responseBody = "close"
          this.toClient(buf.subarray(off))
        }
        return
      }
      const head = parseResponseHead(buf, off, end)
      this.toClient(head.rewritten ?? buf.subarray(off, end + HEAD_END.length))
      off = end + HEAD_END.length
      if (head.status === 101) {
        // the daemon switched protocols: both sides are relayed as they are from now on
        this.tunnel = true
        this.responseBody = "close"
        const held = this.input
        this.input = undefined
        this.suspended = false
        this.onQuiet = undefined
        if (held !== undefined) this.toBackend(held)
        this.flow()
        if (off < buf.length) this.toClient(buf.subarray(off))
        return
      }
      if (head.status >= 100 && head.status < 200) {
        this.responding = false // an interim response: the final one follows
        continue
      }
      if (this.pending[0]?.method === "HEAD" || head.status === 204 || head.status === 304 || head.body === 0)
        this.responseDone()
      else if (head.body === "close") this.responseBody = "close"
      else this.responseBody = head.body === "chunked" ? new ChunkedBody() : new LengthBody(head.body)
    }
  }

  private responseDone() {
    this.rerouted = false
    this.pending.shift()
    this.replays.shift()
    this.answered++
    this.responding = false
    if (this.pending.length > 0 || this.body !== undefined) return
    if (this.clientEnded) return this.close()
    const then = this.onQuiet
    if (then !== undefined) {
      this.onQuiet = undefined
      this.resume(then)
    }
  }

  /** The daemon closed its side (or never took the connection). */
  private onBackendClose() {
    const e = this.backendError
    this.backend = undefined
    this.backendFull = false
    if (this.done) return
    if (this.responseBody === "close") {
      // the end of a response framed by the close (or of a tunnel)
      this.client.end()
      this.finish()
      return
    }
    if (this.pending.length === 0 && this.body === undefined && this.responseHead === undefined) {
      // an idle connection the daemon closed: the next request opens another
      this.responding = false
      return
    }
    if (!this.responding && this.target !== undefined && this.replay(this.target)) return
    if (!this.responding && this.target !== undefined) {
      const port = this.target.port
      const why =
        e !== undefined
          ? unreachable(port, e)
          : failure(502, "Bad Gateway", [
              `The daemon on port ${port} closed the connection without a response.`,
            ])
      if (this.reroute(why)) return
      return void this.answer(this.pending[0], why)
    }
    this.destroy()
  }

  /**
   * Sends the pending requests again on a new connection, when the daemon closed a kept-alive one
   * without a byte of their answers and each of them may be repeated; false otherwise. The new
   * connection has answered nothing, so a close of it is a 502.
   */
  private replay(target: Routed): boolean {
    if (this.answered === 0 || this.body !== undefined || this.responseHead !== undefined) return false
    const wires = this.replays.filter((w) => w !== undefined)
    if (wires.length === 0 || wires.length !== this.pending.length) return false
    this.connect(target, this.backendKey)
    for (const wire of wires) this.toBackend(wire)
    return true
  }

  /**
   * Routes the pending requests once more, when the daemon took none of them and each may be
   * repeated, and sends them to the slug's target now if it is another: an instance of a
   * replicated daemon that stopped between the routing and the connection (docs/replicas.md).
   * `why` answers them otherwise. False when they cannot be sent again.
   */
  private reroute(why: ProxyFailure): boolean {
    const head = this.pending[0]
    const wires = this.replays.filter((w): w is string => w !== undefined)
    if (this.rerouted || head === undefined || this.body !== undefined || this.responseHead !== undefined)
      return false
    if (wires.length !== this.pending.length) return false
    this.rerouted = true
    const failed = this.backendKey
    const go = (r: Routing): boolean => {
      const key = r._tag === "Target" ? `${r.address ?? DEFAULT_ADDRESS} ${r.port}` : failed
      if (r._tag === "Failure" || key === failed) return this.answer(head, why)
      this.connect(r, key)
      for (const wire of wires) this.toBackend(wire)
      return true
    }
    const routing = route(head.host, head.hops, this.options)
    if (!(routing instanceof Promise)) return go(routing) || true
    this.suspend()
    routing.then(
      (r) => this.resume(() => go(r)),
      () => this.resume(() => this.answer(head, why)),
    )
    return true
  }

  private onBackendIdle() {
    if (this.pending.length === 0 || this.responding) return
    const seconds = this.options.responseTimeout / 1000
    this.answer(
      this.pending[0],
      failure(504, "Gateway Timeout", [
        `The daemon on port ${this.target?.port} sent no response within ${seconds}s.`,
      ]),
    )
  }

  /** Answers with a failure page and closes the connection; false: nothing more is read. */
  private answer(head: RequestHead | undefined, f: ProxyFailure): boolean {
    const page = renderFailure(f, head?.accept)
    const body = head?.method === "HEAD" ? "" : page.body
    const reason = STATUS_CODES[f.status] ?? f.title
    this.client.end(
      `HTTP/1.1 ${f.status} ${reason}\r\ncontent-type: ${page.contentType}\r\ncache-control: no-store\r\ncontent-length: ${Buffer.byteLength(page.body)}\r\nconnection: close\r\n\r\n${body}`,
    )
    this.finish()
    // what the client still sends is read and dropped, so that it sees the page and not a reset
    this.client.resume()
    return false
  }

  /** Runs `then` once no response is outstanding (now, or later while reading waits). */
  private whenQuiet(then: () => boolean): boolean {
    if (this.pending.length === 0 && this.body === undefined) return then()
    this.onQuiet = then
    this.suspend()
    return false
  }

  /** Leaves the connection to Node's HTTP server once no response is outstanding. */
  private handOff(bytes: Buffer) {
    this.input = concat(bytes, this.input)
    this.whenQuiet(() => {
      const held = this.input
      this.input = undefined
      this.done = true
      this.dropBackend()
      const client = this.client
      client.off("data", this.onClientData)
      client.off("end", this.onClientEnd)
      client.off("timeout", this.onClientIdle)
      client.off("error", this.onClientClose)
      client.off("close", this.onClientClose)
      client.off("drain", this.onClientDrain)
      client.setTimeout(0)
      client.pause()
      if (held !== undefined && held.length > 0) client.unshift(held)
      this.options.handOff(client)
      client.resume()
      return false
    })
  }

  private suspend() {
    this.suspended = true
    this.flow()
  }

  /** Goes on after a wait: `then` says whether reading may go on. */
  private resume(then: () => boolean) {
    if (this.done) return
    this.suspended = false
    if (!then()) return
    this.flow()
    this.pump()
  }

  /** Reads from each side only while the other takes it and the relay is not waiting. */
  private flow() {
    if (this.done) return
    if (this.suspended || this.backendFull) this.client.pause()
    else this.client.resume()
  }

  private readonly onClientDrain = () => {
    if (!this.clientFull) return
    this.clientFull = false
    this.backend?.resume()
  }

  private readonly onClientEnd = () => {
    if (this.done) return this.client.destroy()
    if (this.tunnel) return void this.backend?.end()
    this.clientEnded = true
    if (this.pending.length === 0 && !this.suspended) this.close()
  }

  private readonly onClientIdle = () => {
    // a request held for its routing (a daemon started on request) is not idle
    if (this.pending.length === 0 && this.body === undefined && !this.tunnel && !this.suspended) this.close()
  }

  private readonly onClientClose = () => {
    this.finish()
    this.client.destroy()
  }

  private close() {
    this.client.end()
    this.finish()
  }

  private destroy() {
    this.client.destroy()
    this.finish()
  }

  /** Nothing more is relayed: the daemon's connection goes. */
  private finish() {
    this.done = true
    this.input = undefined
    this.dropBackend()
  }

  private dropBackend() {
    const backend = this.backend
    this.backend = undefined
    this.backendFull = false
    this.responseBody = undefined
    this.responseHead = undefined
    this.responding = false
    backend?.destroy()
  }
}

/** Relays one accepted connection (see `Relay`). */
export const relayConnection = (client: net.Socket, options: RelayOptions): void => {
  new Relay(client, options)
}
