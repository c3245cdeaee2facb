// What the native front hands the worker (src/proxy/native/front.c): a connection on the hand-off
// socket that starts with one line, `REMOTE CODE ARG`, then the client's bytes from a request on.
import type { Socket } from "node:net"
import { Duplex } from "node:stream"
import { failureResponse } from "../http1/failureResponse.js"
import { HEAD_END, parseRequestHead } from "../http1/head.js"
import { failure, type ProxyFailure } from "../pages.js"
import { plainHttpAnswer } from "../tls/plainHttpAnswer.js"

/** What the front asks of the worker for a handed-off connection. */
export type HandOff =
  /** Relay it (after forgetting the kept targets: one of them failed). */
  | { readonly _tag: "Relay"; readonly remote: string; readonly forget: boolean }
  /** Answer the request with the failure kept under `token` (the routing's answer). */
  | { readonly _tag: "Kept"; readonly remote: string; readonly token: number }
  /** The daemon on `port` closed the connection without a response (502) or sent none in time (504). */
  | { readonly _tag: "Silent"; readonly remote: string; readonly status: 502 | 504; readonly port: number }
  /** A decrypted HTTP/2 connection, for Node's HTTP/2 server. */
  | { readonly _tag: "H2"; readonly remote: string }
  /** Plain HTTP sent to the HTTPS `port`: told to use https://. */
  | { readonly _tag: "Plain"; readonly remote: string; readonly port: number }

/** Reads the hand-off line (without its LF); undefined when it is not one. */
export const parseHandOffLine = (line: string): HandOff | undefined => {
  const [remote, code, arg, ...more] = line.split(" ")
  if (
    remote === undefined ||
    remote === "" ||
    more.length > 0 ||
    !/^\d+$/.test(code ?? "") ||
    !/^\d+$/.test(arg ?? "")
  )
    return undefined
  const client = remote === "-" ? "" : remote
  const n = Number(arg)
  switch (code) {
    case "0":
    case "1":
      return { _tag: "Relay", remote: client, forget: code === "1" }
    case "2":
      return { _tag: "Kept", remote: client, token: n }
    case "3":
      return { _tag: "H2", remote: client }
    case "4":
      return { _tag: "Plain", remote: client, port: n }
    case "502":
    case "504":
      return { _tag: "Silent", remote: client, status: code === "502" ? 502 : 504, port: n }
    default:
      return undefined
  }
}

/** The failure a `Silent` hand-off answers: the worker's relay's own words for it. */
export const silentFailure = (
  h: { readonly status: 502 | 504; readonly port: number },
  responseTimeout: number,
) =>
  h.status === 502
    ? failure(502, "Bad Gateway", [`The daemon on port ${h.port} closed the connection without a response.`])
    : failure(504, "Gateway Timeout", [
        `The daemon on port ${h.port} sent no response within ${responseTimeout / 1000}s.`,
      ])

/** The line and the request head are read within this many bytes, or the connection is dropped. */
const MAX_START = 64 * 1024

export interface HandOffReceiver {
  readonly relay: (socket: Socket) => void
  /** Node's HTTP/2 server (HTTPS only). */
  readonly h2?: ((socket: Duplex) => void) | undefined
  readonly forget: () => void
  /** The failure kept for a routing the front handed over (taken once). */
  readonly kept: (token: number) => ProxyFailure | undefined
  readonly responseTimeout: number
}

/**
 * Takes one connection of the hand-off socket: reads its line, then gives the rest to the relay
 * (with the client's address as its `remoteAddress`), or answers the failure and drops what else
 * the client sends.
 */
export const receiveHandOff = (socket: Socket, receiver: HandOffReceiver): void => {
  let start: Buffer = Buffer.alloc(0)
  let handOff: HandOff | undefined
  const onData = (chunk: Buffer) => {
    start = start.length === 0 ? chunk : Buffer.concat([start, chunk])
    if (handOff === undefined) {
      const nl = start.indexOf(10)
      if (nl < 0) return void (start.length > 256 && socket.destroy())
      handOff = parseHandOffLine(start.toString("latin1", 0, nl))
      if (handOff === undefined) return void socket.destroy()
      start = start.subarray(nl + 1)
      // the client's address, for X-Forwarded-For (the relay and Node's server read it here)
      Object.defineProperty(socket, "remoteAddress", { value: handOff.remote, configurable: true })
      const h2 = receiver.h2
      if (handOff._tag === "H2" && h2 !== undefined) {
        socket.off("data", onData)
        return h2(replaying(socket, start))
      }
      if (handOff._tag === "Relay") {
        socket.off("data", onData)
        socket.pause()
        if (start.length > 0) socket.unshift(start)
        if (handOff.forget) receiver.forget()
        receiver.relay(socket)
        socket.resume()
        return
      }
    }
    if (handOff._tag === "Plain") {
      if (start.length === 0) return
      socket.off("data", onData)
      socket.end(plainHttpAnswer(start.toString("latin1"), handOff.port))
      socket.on("data", () => {})
      return
    }
    const end = start.indexOf(HEAD_END)
    if (end < 0) return void (start.length > MAX_START && socket.destroy())
    socket.off("data", onData)
    const parsed = parseRequestHead(start, 0, end)
    const head = parsed._tag === "Request" ? parsed : undefined
    const h = handOff
    const f =
      h._tag === "Silent"
        ? silentFailure(h, receiver.responseTimeout)
        : h._tag === "Kept"
          ? (receiver.kept(h.token) ?? failure(500, "Proxy Error", ["The proxy lost this request's answer."]))
          : failure(500, "Proxy Error", ["The proxy could not relay this request."])
    socket.end(failureResponse(f, head))
    // what the client still sends is read and dropped, so that it sees the page and not a reset
    socket.on("data", () => {})
  }
  socket.on("data", onData)
  socket.on("error", () => socket.destroy())
}

/**
 * `socket` as a stream that gives `first` before what it reads: Node's HTTP/2 server reads a
 * socket's handle itself, past bytes the hand-off read already (the client's preface).
 */
const replaying = (socket: Socket, first: Buffer): Duplex => {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk: Buffer, _encoding, done) => void socket.write(chunk, done),
    final: (done) => {
      socket.end()
      done()
    },
    destroy: (error, done) => {
      socket.destroy(error ?? undefined)
      done(error)
    },
  })
  Object.defineProperty(stream, "remoteAddress", { value: socket.remoteAddress })
  if (first.length > 0) stream.push(first)
  socket.on("data", (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause()
  })
  socket.on("end", () => stream.push(null))
  socket.on("close", () => stream.destroy())
  socket.resume()
  return stream
}
