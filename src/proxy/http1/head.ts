import { HOP_BY_HOP, HOPS_HEADER } from "../headers.js"

/** The end of a message head: the empty line. */
export const HEAD_END = Buffer.from("\r\n\r\n", "latin1")
/** A head longer than this goes to Node's parser, which answers 431 (its own limit is 16 KiB). */
export const MAX_HEAD = 16 * 1024

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^\x00-\x20\x7f]+) HTTP\/1\.1$/
const FIELD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\x00-\x08\x0a-\x1f\x7f]*?)[ \t]*$/
const DIGITS = /^\d{1,15}$/

/** Request headers that describe one connection (RFC 9110 7.6.1); the framing (and its Trailer) is relayed. */
const HOP_BY_HOP_REQUEST = new Set(
  [...HOP_BY_HOP].filter((h) => h !== "transfer-encoding" && h !== "trailer"),
)
/**
 * Kept whatever `Connection` names: the body's framing (dropping it would let the daemon read the
 * body as another request) and the host.
 */
const NEVER_NAMED = new Set(["content-length", "transfer-encoding", "host"])
/** Set by the proxy itself. */
const REPLACED = new Set(["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", HOPS_HEADER])

/** A request the relay forwards itself: its head and how its body is framed. */
export interface RequestHead {
  readonly _tag: "Request"
  readonly method: string
  readonly host: string
  readonly hops: number
  readonly accept: string | undefined
  /** Content-Length, or "chunked", or 0 for no body. */
  readonly body: number | "chunked"
  /** The request line and the end-to-end header lines as received (without the final CRLF). */
  readonly kept: string
  /** The X-Forwarded-For values received, joined. */
  readonly forwardedFor: string | undefined
}

/** A request left to Node's HTTP server: HTTP/1.0, an upgrade, CONNECT, or anything unusual. */
export interface OtherRequest {
  readonly _tag: "Other"
}
const OTHER: OtherRequest = { _tag: "Other" }

/**
 * Reads a request head (`buf[start, end)`, without the empty line). Anything the relay does not
 * handle the same way as Node's strict parser would (obs-fold, bare CR or LF, a duplicate or
 * conflicting Content-Length/Transfer-Encoding, HTTP/1.0, upgrades) is `Other`.
 */
export const parseRequestHead = (buf: Buffer, start: number, end: number): RequestHead | OtherRequest => {
  const lines = buf.toString("latin1", start, end).split("\r\n")
  const requestLine = REQUEST_LINE.exec(lines[0]!)
  if (requestLine === null) return OTHER
  const method = requestLine[1]!
  if (method === "CONNECT") return OTHER
  let host: string | undefined
  let hops = 0
  let accept: string | undefined
  let length: string | undefined
  let chunked = false
  let forwardedFor: string | undefined
  let connection = ""
  const names: string[] = []
  for (let i = 1; i < lines.length; i++) {
    const field = FIELD.exec(lines[i]!)
    if (field === null) return OTHER
    const name = field[1]!.toLowerCase()
    const value = field[2]!
    names.push(name)
    switch (name) {
      case "host":
        if (host !== undefined) return OTHER
        host = value
        break
      case "content-length":
        if (length !== undefined || !DIGITS.test(value)) return OTHER
        length = value
        break
      case "transfer-encoding":
        if (chunked || value.toLowerCase() !== "chunked") return OTHER
        chunked = true
        break
      case "connection":
        connection = connection === "" ? value : `${connection},${value}`
        break
      case "upgrade":
        return OTHER
      case "x-forwarded-for":
        forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`
        break
      case HOPS_HEADER: {
        const n = Number.parseInt(value, 10)
        hops = Number.isFinite(n) && n > 0 ? n : 0
        break
      }
      case "accept":
        accept = value
        break
    }
  }
  if (host === undefined || host === "" || (chunked && length !== undefined)) return OTHER
  const named =
    connection === ""
      ? undefined
      : new Set(
          connection
            .split(",")
            .map((s) => s.trim().toLowerCase())
            .filter((s) => s !== ""),
        )
  let kept = lines[0]!
  for (let i = 1; i < lines.length; i++) {
    const name = names[i - 1]!
    if (
      HOP_BY_HOP_REQUEST.has(name) ||
      REPLACED.has(name) ||
      (named?.has(name) === true && !NEVER_NAMED.has(name))
    )
      continue
    kept += `\r\n${lines[i]}`
  }
  return {
    _tag: "Request",
    method,
    host,
    hops,
    accept,
    body: chunked ? "chunked" : length === undefined ? 0 : Number(length),
    kept,
    forwardedFor,
  }
}

/** Response headers that describe the daemon's connection; the framing (and its Trailer) is relayed. */
const RESPONSE_HOP_BY_HOP = new Set(
  [...HOP_BY_HOP].filter((h) => h !== "transfer-encoding" && h !== "trailer" && h !== "proxy-authorization"),
)

/** How a response's body is framed, read from its head. */
export interface ResponseHead {
  readonly status: number
  /** Content-Length, "chunked", or "close" (the body runs until the daemon closes). */
  readonly body: number | "chunked" | "close"
  /**
   * The head without the daemon's connection headers (through the empty line), when it had
   * any; a 101 keeps them (they say what the connection switches to).
   */
  readonly rewritten?: string | undefined
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})/

/** Reads a response head; a head that cannot be read frames its body to the close. */
export const parseResponseHead = (buf: Buffer, start: number, end: number): ResponseHead => {
  const lines = buf.toString("latin1", start, end).split("\r\n")
  const status = STATUS_LINE.exec(lines[0]!)
  if (status === null) return { status: 0, body: "close" }
  const code = Number(status[1])
  let length: string | undefined
  let encoding: string | undefined
  let connection = ""
  let hopByHop = false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    if (name === "content-length") {
      const value = line.slice(colon + 1).trim()
      if ((length !== undefined && length !== value) || !DIGITS.test(value))
        return { status: code, body: "close" }
      length = value
    } else if (name === "transfer-encoding") {
      const value = line.slice(colon + 1).trim()
      encoding = encoding === undefined ? value : `${encoding}, ${value}`
    } else if (RESPONSE_HOP_BY_HOP.has(name)) {
      hopByHop = true
      if (name === "connection") connection += `,${line.slice(colon + 1)}`
    }
  }
  const body: ResponseHead["body"] =
    encoding !== undefined
      ? encoding.toLowerCase().trim().endsWith("chunked")
        ? "chunked"
        : "close"
      : length === undefined
        ? "close"
        : Number(length)
  if (!hopByHop || code === 101) return { status: code, body }
  const named = new Set(connection.split(",").map((s) => s.trim().toLowerCase()))
  let rewritten = lines[0]!
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    const colon = line.indexOf(":")
    const name = colon < 0 ? "" : line.slice(0, colon).trim().toLowerCase()
    if (
      RESPONSE_HOP_BY_HOP.has(name) ||
      (named.has(name) && name !== "transfer-encoding" && name !== "content-length")
    )
      continue
    rewritten += `\r\n${line}`
  }
  return { status: code, body, rewritten: `${rewritten}\r\n\r\n` }
}
