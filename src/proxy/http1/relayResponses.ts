import { failure, type ProxyFailure } from "../pages.js"
import { unreachable } from "../route.js"
import { ChunkedBody, LengthBody } from "./body.js"
import { HEAD_END, parseResponseHead } from "./head.js"
import {
  answer,
  close,
  connect,
  destroy,
  pendingOf,
  pump,
  run,
  toDaemon,
  type Work,
} from "./relayRequests.js"
import { IDLE } from "./relayState.js"

const toClient = (w: Work, data: Buffer | string): void => {
  if (data.length > 0) w.out.push({ _tag: "ToClient", data })
}

/**
 * Relays the daemon's bytes, following the responses' framing to know when each one ends; a
 * head loses the daemon's connection headers (the client's connection is the relay's own).
 */
export const follow = (w: Work, chunk: Buffer) => {
  const s = w.s
  const id = s.daemon?.id
  let buf = chunk
  if (s.response._tag === "Head") {
    buf = Buffer.concat([s.response.partial, chunk])
    s.response = IDLE
  }
  let off = 0
  // a response's end may let the relay switch daemons or close: the rest is then not this one's
  while (off < buf.length && w.end === undefined && s.daemon?.id === id && s.daemon?.open === true) {
    const response = s.response
    if (response._tag === "Close") return toClient(w, buf.subarray(off))
    if (response._tag === "Body") {
      let framing = response.framing
      if (!w.ownResponse) {
        framing = framing.clone()
        s.response = { _tag: "Body", framing }
        w.ownResponse = true
      }
      const n = framing.feed(buf, off)
      if (n < 0) {
        s.response = { _tag: "Close" }
        continue
      }
      toClient(w, buf.subarray(off, off + n))
      off += n
      if (framing.done) responseDone(w)
      continue
    }
    const end = buf.indexOf(HEAD_END, off)
    if (end < 0) {
      if (buf.length - off <= s.config.maxResponseHead)
        s.response = { _tag: "Head", partial: buf.subarray(off) }
      else {
        s.response = { _tag: "Close" }
        toClient(w, buf.subarray(off))
      }
      return
    }
    const head = parseResponseHead(buf, off, end)
    toClient(w, head.rewritten ?? buf.subarray(off, end + HEAD_END.length))
    off = end + HEAD_END.length
    if (head.status === 101) return tunnel(w, buf.subarray(off))
    // an interim response: the final one follows
    if (head.status >= 100 && head.status < 200) continue
    if (s.pending[0]?.head.method === "HEAD" || head.status === 204 || head.status === 304 || head.body === 0)
      responseDone(w)
    else if (head.body === "close") s.response = { _tag: "Close" }
    else {
      s.response = {
        _tag: "Body",
        framing: head.body === "chunked" ? new ChunkedBody() : new LengthBody(head.body),
      }
      w.ownResponse = true
    }
  }
}

/** The daemon switched protocols: both sides are relayed as they are from now on. */
const tunnel = (w: Work, rest: Buffer): void => {
  const s = w.s
  const held = s.input
  s.input = undefined
  if (held !== undefined) toDaemon(w, held)
  const resume = s.clientPaused && !s.daemonFull
  if (resume) w.out.push({ _tag: "ResumeClient" })
  toClient(w, rest)
  w.end = {
    _tag: "Tunnel",
    daemon: s.daemon!.id,
    clientFull: s.clientFull,
    daemonFull: s.daemonFull,
    clientPaused: s.clientPaused && !resume,
  }
}

const responseDone = (w: Work) => {
  const s = w.s
  s.rerouted = false
  pendingOf(w).shift()
  s.answered++
  s.response = IDLE
  if (s.pending.length > 0 || s.request._tag === "Body") return
  if (s.clientEnded) return close(w)
  const request = s.request
  if (request._tag === "Quiet") {
    s.request = { _tag: "Head" }
    if (run(w, request.then)) pump(w)
  }
}

/** The daemon closed its side (or never took the connection). */
export const daemonClosed = (w: Work) => {
  const s = w.s
  const daemon = s.daemon!
  s.daemon = { ...daemon, open: false }
  s.daemonFull = false
  if (s.response._tag === "Close") {
    // the end of a response framed by the close
    return close(w)
  }
  if (s.pending.length === 0 && s.request._tag !== "Body" && s.response._tag !== "Head") {
    // an idle connection the daemon closed: the next request opens another
    s.response = IDLE
    return
  }
  if (s.response._tag !== "Idle") return destroy(w)
  if (replay(w)) return
  const port = daemon.target.port
  const why =
    daemon.error !== undefined
      ? unreachable(port, daemon.error)
      : failure(502, "Bad Gateway", [`The daemon on port ${port} closed the connection without a response.`])
  if (reroute(w, why)) return
  answer(w, s.pending[0]?.head, why)
}

/**
 * Sends the pending requests again on a new connection, when the daemon closed a kept-alive one
 * without a byte of their answers and each of them may be repeated; false otherwise. The new
 * connection has answered nothing, so a close of it is a 502.
 */
const replay = (w: Work): boolean => {
  const s = w.s
  const daemon = s.daemon!
  if (s.answered === 0 || s.request._tag === "Body") return false
  if (s.pending.length === 0 || !s.pending.every((p) => p.wire !== undefined)) return false
  connect(w, daemon.target, daemon.key)
  for (const p of s.pending) toDaemon(w, p.wire!)
  return true
}

/**
 * Routes the pending requests once more, when the daemon took none of them and each may be
 * repeated, to send them to the slug's target if it is another now: an instance of a replicated
 * daemon that stopped between the routing and the connection (docs/replicas.md). `why` answers
 * them otherwise. False when they cannot be sent again.
 */
const reroute = (w: Work, why: ProxyFailure): boolean => {
  const s = w.s
  const head = s.pending[0]?.head
  const request = s.request
  if (s.rerouted || head === undefined || (request._tag !== "Head" && request._tag !== "Quiet")) return false
  if (!s.pending.every((p) => p.wire !== undefined)) return false
  s.rerouted = true
  s.request = { _tag: "Rerouting", why, failed: s.daemon!.key, after: request }
  w.out.push({ _tag: "Route", host: head.host, hops: head.hops, again: true })
  return true
}

/** The daemon was silent for the response timeout: a request waiting for its answer gets a 504. */
export const daemonIdle = (w: Work): void => {
  const s = w.s
  if (s.pending.length === 0 || s.response._tag !== "Idle") return
  const seconds = s.config.responseTimeout / 1000
  answer(
    w,
    s.pending[0]!.head,
    failure(504, "Gateway Timeout", [
      `The daemon on port ${s.daemon?.target.port} sent no response within ${seconds}s.`,
    ]),
  )
}
