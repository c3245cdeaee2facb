// One HTTP/1.1 exchange over the supervisor's socket, by hand over `net`: the quick commands
// (list, start, stop, logs, cd) are bound by what Node loads, and `node:http` costs 4-7 ms more
// than `net` alone (docs/benchmarks.md, CLI start-up). The body is read on bytes, so a chunk
// boundary inside a UTF-8 character changes nothing.
import * as net from "node:net"
import { type BodyReader, parseHead } from "./http1Body.js"

export interface Reply {
  readonly status: number
  /** Header values by lower-case name (a repeated header: its values joined with ", "). */
  readonly headers: ReadonlyMap<string, string>
  /**
   * Receives the body's bytes in order, then whether it came whole (false: the connection broke
   * off first). Once per reply; bytes that came with the head are given at once.
   */
  readonly receive: (onData: (chunk: Buffer) => void, onEnd: (whole: boolean) => void) => void
  /**
   * Stops reading from the socket until `resume` (a reader slower than the supervisor). A
   * `timeoutMs` still runs meanwhile.
   */
  readonly pause: () => void
  readonly resume: () => void
  /** Gives the rest of the reply up (closes the connection): `onEnd(false)`, and no more data. */
  readonly close: () => void
}

export interface Exchange {
  readonly socket: string
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** No answer (or no more of it) for this long: the exchange is given up. */
  readonly timeoutMs?: number
}

/** Why no reply came: nothing listens at the socket, or the connection broke off or timed out first. */
export type NoReply = "unreachable" | "no reply"

/** The reply's head once it has come (its body through `receive`), or why none came. */
export const exchange = (x: Exchange): Promise<Reply | NoReply> =>
  new Promise((resolve) => {
    const body = x.body === undefined ? undefined : Buffer.from(x.body)
    let head: Buffer = Buffer.alloc(0)
    let reader: BodyReader | undefined
    let sink: { onData: (chunk: Buffer) => void; onEnd: (whole: boolean) => void } | undefined
    const early: Array<Buffer> = []
    let ended: boolean | undefined // the connection's end: whether the body came whole
    let finished = false // `onEnd` called: nothing more reaches the reader
    let connected = false
    let timedOut = false
    const s = net.connect(x.socket)
    const finish = (whole: boolean) => {
      if (finished || sink === undefined) return
      finished = true
      sink.onEnd(whole)
    }
    const end = (whole: boolean) => {
      if (ended === undefined) {
        ended = whole
        s.destroy()
        if (reader === undefined) resolve(connected || timedOut ? "no reply" : "unreachable")
      }
      finish(ended)
    }
    const deliver = (chunk: Buffer) => {
      if (chunk.length === 0 || finished) return
      if (sink === undefined) early.push(chunk)
      else sink.onData(chunk)
    }
    const feed = (bytes: Buffer) => {
      let pieces: Array<Buffer>
      try {
        pieces = reader!.push(bytes)
      } catch {
        return end(false) // framing no supervisor sends: the reply is broken
      }
      for (const piece of pieces) deliver(piece)
      if (reader!.done) end(true)
    }
    if (x.timeoutMs !== undefined)
      s.setTimeout(x.timeoutMs, () => {
        timedOut = true
        end(false)
      })
    s.on("connect", () => {
      connected = true
      const lines = [`${x.method} ${x.path} HTTP/1.1`, "host: localhost", "connection: close"]
      for (const [k, v] of Object.entries(x.headers ?? {})) lines.push(`${k}: ${v}`)
      if (body !== undefined) lines.push(`content-length: ${body.length}`)
      const text = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1")
      s.write(body === undefined ? text : Buffer.concat([text, body]))
    })
    s.on("data", (chunk: Buffer) => {
      if (ended !== undefined) return
      if (reader !== undefined) return feed(chunk)
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
      const parsed = parseHead(head, x.method)
      if (parsed === "more") return
      if (parsed === "bad") return end(false)
      reader = parsed.reader
      resolve({
        status: parsed.status,
        headers: parsed.headers,
        receive: (onData, onEnd) => {
          sink = { onData, onEnd }
          for (const c of early.splice(0)) if (!finished) onData(c)
          if (ended !== undefined) finish(ended)
        },
        pause: () => s.pause(),
        resume: () => s.resume(),
        close: () => {
          if (ended === undefined) ended = false
          s.destroy()
          finish(false)
        },
      })
      feed(head.subarray(parsed.length))
    })
    // the end of a body read until the connection closes, or a reply cut short
    s.on("end", () => end(reader?.untilClose === true))
    s.on("close", () => end(reader?.untilClose === true))
    s.on("error", () => end(false))
  })

/** The whole body, or undefined when it broke off. */
export const readAll = (reply: Reply): Promise<Buffer | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    reply.receive(
      (chunk) => chunks.push(chunk),
      (whole) => resolve(whole ? Buffer.concat(chunks) : undefined),
    )
  })

/** The body's lines (split on `\n`, which no UTF-8 character holds), each decoded whole. */
export const lineReader = (onLine: (line: string) => void) => {
  let rest: Buffer = Buffer.alloc(0)
  return (chunk: Buffer) => {
    let bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk])
    for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10)) {
      onLine(bytes.toString("utf8", 0, nl))
      bytes = bytes.subarray(nl + 1)
    }
    rest = bytes
  }
}
