import { HOPS_HEADER } from "../headers.js"
import type { ProxyFailure } from "../pages.js"
import { DEFAULT_ADDRESS, type Routed, type Routing } from "../route.js"
import { ChunkedBody, LengthBody } from "./body.js"
import { failureResponse } from "./failureResponse.js"
import { HEAD_END, parseRequestHead, type RequestHead } from "./head.js"
import {
  type Deferred,
  HEAD,
  IDLE,
  type Pending,
  type RelayAction,
  type Relaying,
  type RelayState,
  type RequestSide,
} from "./relayState.js"
import { replayable } from "./retry.js"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * One step at work: a copy of the state that the step changes, the actions it emits, and the
 * state it ends in when the connection leaves `Relaying`. The body framings of the state it
 * started from are copied before they are fed (`ownRequest`, `ownResponse`), so that state is
 * left as it was.
 */
export interface Work {
  s: Mutable<Relaying>
  out: RelayAction[]
  end: RelayState | undefined
  ownRequest: boolean
  ownResponse: boolean
  /** `s.pending` may be changed in place. */
  ownPending: boolean
}

/** The pending requests, to change in place (copied first when they are the old state's). */
export const pendingOf = (w: Work): Pending[] => {
  if (!w.ownPending) {
    w.s.pending = [...w.s.pending]
    w.ownPending = true
  }
  return w.s.pending as Pending[]
}

/** `a` then `b`, either of which may be missing. */
export const concat = (a: Buffer | undefined, b: Buffer | undefined): Buffer | undefined =>
  a === undefined ? b : b === undefined ? a : Buffer.concat([a, b])

export const keyOf = (r: Routed): string => `${r.address ?? DEFAULT_ADDRESS} ${r.port}`

/** The relay waits (for a routing or the outstanding responses) and reads no request. */
export const waiting = (request: RequestSide): boolean =>
  request._tag === "Routing" || request._tag === "Rerouting" || request._tag === "Quiet"

export const toDaemon = (w: Work, data: Buffer | string): void => {
  if (w.s.daemon?.open === true) w.out.push({ _tag: "ToDaemon", data })
}

/** Relays the requests in `input` until it runs out, or the relay must wait. */
export const pump = (w: Work) => {
  const s = w.s
  const buf = s.input
  if (buf === undefined) return
  s.input = undefined
  let off = 0
  while (off < buf.length && w.end === undefined) {
    const request = s.request
    if (request._tag === "Body") {
      let framing = request.framing
      if (!w.ownRequest) {
        framing = framing.clone()
        s.request = { _tag: "Body", framing }
        w.ownRequest = true
      }
      const n = framing.feed(buf, off)
      if (n < 0) return destroy(w)
      toDaemon(w, buf.subarray(off, off + n))
      off += n
      if (framing.done) s.request = HEAD
      continue
    }
    if (request._tag !== "Head") break
    const end = buf.indexOf(HEAD_END, off)
    if (end < 0) {
      if (buf.length - off > s.config.maxHead) return handOff(w, buf.subarray(off))
      break
    }
    const head = parseRequestHead(buf, off, end)
    if (head._tag === "Other") return handOff(w, buf.subarray(off))
    off = end + HEAD_END.length
    s.request = { _tag: "Routing", head }
    w.out.push({ _tag: "Route", host: head.host, hops: head.hops })
  }
  if (off < buf.length && w.end === undefined) s.input = off === 0 ? buf : buf.subarray(off)
}

/** The answer to the `Route` of a request head, or of the pending requests (`Rerouting`). */
export const routed = (w: Work, r: Routing) => {
  const s = w.s
  const request = s.request
  if (request._tag === "Routing") {
    s.request = HEAD
    if (apply(w, request.head, r)) pump(w)
  } else if (request._tag === "Rerouting") {
    const key = r._tag === "Target" ? keyOf(r) : request.failed
    s.request = request.after
    if (r._tag === "Failure" || key === request.failed) return void answer(w, s.pending[0]?.head, request.why)
    connect(w, r, key)
    for (const p of s.pending) if (p.wire !== undefined) toDaemon(w, p.wire)
    if (s.request._tag === "Head") pump(w)
  }
}

/** Sends a routed request, or waits to answer it; false when the relay must stop reading. */
const apply = (w: Work, head: RequestHead, r: Routing): boolean => {
  if (r._tag === "Failure") return whenQuiet(w, { _tag: "Answer", head, failure: r })
  const key = keyOf(r)
  const daemon = w.s.daemon
  if (daemon?.open === true && key !== daemon.key)
    return whenQuiet(w, { _tag: "Switch", head, target: r, key })
  return send(w, head, r, key)
}

const send = (w: Work, head: RequestHead, r: Routed, key: string): boolean => {
  const s = w.s
  if (s.daemon?.open !== true) connect(w, r, key)
  const remote = s.config.remote
  const forwardedFor = head.forwardedFor === undefined ? remote : `${head.forwardedFor}, ${remote}`
  const wire = `${head.kept}\r\nx-forwarded-for: ${forwardedFor}\r\nx-forwarded-host: ${head.host}\r\nx-forwarded-proto: ${s.config.proto}\r\n${HOPS_HEADER}: ${head.hops + 1}\r\n\r\n`
  toDaemon(w, wire)
  pendingOf(w).push({ head, wire: replayable(head) ? wire : undefined })
  if (head.body === "chunked" || head.body > 0) {
    s.request = {
      _tag: "Body",
      framing: head.body === "chunked" ? new ChunkedBody() : new LengthBody(head.body),
    }
    w.ownRequest = true
  }
  return true
}

/** Opens a new daemon connection (the pending requests' answers come on it). */
export const connect = (w: Work, target: Routed, key: string): void => {
  const s = w.s
  const id = s.nextId
  s.nextId = id + 1
  s.daemon = { id, key, target, open: true, error: undefined }
  s.answered = 0
  s.daemonFull = false
  w.out.push({ _tag: "Connect", id, target })
}

/** Runs `then` once no response is outstanding (now, or later while reading waits). */
const whenQuiet = (w: Work, then: Deferred): boolean => {
  if (w.s.pending.length === 0 && w.s.request._tag !== "Body") return run(w, then)
  w.s.request = { _tag: "Quiet", then }
  return false
}

/** Does what waited for the responses; false when nothing more is read. */
export const run = (w: Work, then: Deferred): boolean => {
  switch (then._tag) {
    case "Answer":
      return answer(w, then.head, then.failure)
    case "Switch":
      dropDaemon(w)
      return send(w, then.head, then.target, then.key)
    case "HandOff": {
      const bytes = w.s.input
      w.s.input = undefined
      dropDaemon(w)
      w.out.push({ _tag: "HandOff", bytes })
      w.end = { _tag: "HandedOff" }
      return false
    }
  }
}

/** Leaves the connection to Node's HTTP server once no response is outstanding. */
const handOff = (w: Work, bytes: Buffer): void => {
  w.s.input = concat(bytes, w.s.input)
  whenQuiet(w, { _tag: "HandOff" })
}

/** Answers with a failure page and closes the connection; false: nothing more is read. */
export const answer = (w: Work, head: RequestHead | undefined, f: ProxyFailure): boolean => {
  w.out.push({ _tag: "EndClient", page: failureResponse(f, head) })
  finish(w)
  // what the client still sends is read and dropped, so that it sees the page and not a reset
  w.out.push({ _tag: "ResumeClient" })
  return false
}

export const close = (w: Work): void => {
  w.out.push({ _tag: "EndClient", page: undefined })
  finish(w)
}

export const destroy = (w: Work): void => {
  w.out.push({ _tag: "DestroyClient" })
  finish(w)
}

/** Nothing more is relayed: the daemon's connection goes. */
export const finish = (w: Work): void => {
  w.s.input = undefined
  dropDaemon(w)
  w.end = { _tag: "Closed" }
}

/** Closes the daemon's connection; a later request opens another. */
export const dropDaemon = (w: Work): void => {
  const s = w.s
  const daemon = s.daemon
  if (daemon?.open === true) {
    w.out.push({ _tag: "DropDaemon", id: daemon.id })
    s.daemon = { ...daemon, open: false }
  }
  s.daemonFull = false
  s.response = IDLE
}
