// The framing of an HTTP/1.1 reply, on bytes and without Node's `http` (src/quick/http1.ts): the
// head, then a body of `content-length` bytes, chunked, or read until the connection closes.

const CRLFCRLF = Buffer.from("\r\n\r\n")

/** A reply's head read off the front of `bytes`, with the reader of the body that follows it. */
export interface Head {
  readonly status: number
  readonly headers: ReadonlyMap<string, string>
  /** Bytes of the head, its blank line included. */
  readonly length: number
  readonly reader: BodyReader
}

/**
 * The head at the front of `bytes`: "more" while its blank line has not come, "bad" for what is
 * no HTTP/1.x reply. Interim replies (1xx) are skipped.
 */
export const parseHead = (bytes: Buffer, method: string): Head | "more" | "bad" => {
  let start = 0
  for (;;) {
    const end = bytes.indexOf(CRLFCRLF, start)
    if (end < 0) return "more"
    const [statusLine = "", ...lines] = bytes.toString("latin1", start, end).split("\r\n")
    const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine)
    if (m === null) return "bad"
    const status = Number(m[1])
    if (status >= 100 && status < 200) {
      start = end + 4
      continue
    }
    const headers = new Map<string, string>()
    for (const line of lines) {
      const colon = line.indexOf(":")
      if (colon <= 0) return "bad"
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      const before = headers.get(name)
      headers.set(name, before === undefined ? value : `${before}, ${value}`)
    }
    const reader = readerFor(status, method, headers)
    return reader === undefined ? "bad" : { status, headers, length: end + 4, reader }
  }
}

const readerFor = (status: number, method: string, headers: ReadonlyMap<string, string>) => {
  if (method === "HEAD" || status === 204 || status === 304)
    return new BodyReader({ _tag: "length", left: 0 })
  const coding = headers.get("transfer-encoding")
  if (coding !== undefined)
    return /(^|,)\s*chunked\s*$/i.test(coding) ? new BodyReader({ _tag: "size", line: "" }) : undefined
  const length = headers.get("content-length")
  if (length === undefined) return new BodyReader({ _tag: "close" })
  return /^\d{1,15}$/.test(length) ? new BodyReader({ _tag: "length", left: Number(length) }) : undefined
}

/** Where a body's reading is. */
type State =
  | { readonly _tag: "length"; readonly left: number }
  | { readonly _tag: "close" }
  /** A chunk's size line, read so far. */
  | { readonly _tag: "size"; readonly line: string }
  | { readonly _tag: "data"; readonly left: number }
  /** The line end after a chunk's data: how many of its two bytes are still to come. */
  | { readonly _tag: "dataEnd"; readonly left: number }
  /** Trailer lines after the last chunk, up to the blank line; `line` read so far. */
  | { readonly _tag: "trailer"; readonly line: string }
  | { readonly _tag: "done" }

/** Reads a body as its bytes come: `push` gives back the body's own bytes, unframed. */
export class BodyReader {
  constructor(private state: State) {}

  get done(): boolean {
    return this.state._tag === "done" || (this.state._tag === "length" && this.state.left === 0)
  }

  /** Read until the connection closes: its close is the body's end. */
  get untilClose(): boolean {
    return this.state._tag === "close"
  }

  /** The body bytes in `bytes` (bytes after the body's end are dropped); throws on bad framing. */
  push(bytes: Buffer): Array<Buffer> {
    const out: Array<Buffer> = []
    let at = 0
    while (at < bytes.length && !this.done) {
      const s = this.state
      switch (s._tag) {
        case "close":
          out.push(bytes.subarray(at))
          at = bytes.length
          break
        case "length":
        case "data": {
          const n = Math.min(s.left, bytes.length - at)
          out.push(bytes.subarray(at, at + n))
          at += n
          this.state =
            s._tag === "length"
              ? { _tag: "length", left: s.left - n }
              : s.left === n
                ? { _tag: "dataEnd", left: 2 }
                : { _tag: "data", left: s.left - n }
          break
        }
        case "dataEnd":
          // the CRLF after a chunk's data
          if (bytes[at] !== (s.left === 2 ? 13 : 10)) throw new Error("bad HTTP chunk end")
          at += 1
          this.state = s.left === 1 ? { _tag: "size", line: "" } : { _tag: "dataEnd", left: 1 }
          break
        case "size":
        case "trailer": {
          const nl = bytes.indexOf(10, at)
          const line = s.line + bytes.toString("latin1", at, nl < 0 ? bytes.length : nl)
          at = nl < 0 ? bytes.length : nl + 1
          if (nl < 0) {
            // a size line or trailer longer than any sane one is no reply of the supervisor's
            if (line.length > 8192) throw new Error("HTTP chunk line too long")
            this.state = { ...s, line }
          } else if (s._tag === "trailer") {
            this.state = line.replace(/\r$/, "") === "" ? { _tag: "done" } : { _tag: "trailer", line: "" }
          } else {
            const size = /^([0-9a-fA-F]{1,12})[ \t]*(;[^\r]*)?\r?$/.exec(line)
            if (size === null) throw new Error("bad HTTP chunk size")
            const n = Number.parseInt(size[1]!, 16)
            this.state = n === 0 ? { _tag: "trailer", line: "" } : { _tag: "data", left: n }
          }
          break
        }
        case "done":
          break
      }
    }
    return out
  }
}
