/**
 * Where an HTTP/1.1 message body ends, found while its bytes are relayed unchanged: a length
 * counts down, a chunked body is followed chunk by chunk through its trailer section. The
 * relay never decodes or copies a body; it only learns where the next message starts.
 */
export interface BodyFraming {
  /**
   * How many bytes of `buf` from `offset` belong to the body (all of them while it goes on),
   * or -1 when the chunked framing is broken. `done` is true once the body has ended.
   */
  feed(buf: Buffer, offset: number): number
  readonly done: boolean
  /** A copy at the same point, which `feed` moves on without moving this one. */
  clone(): BodyFraming
}

/** A body of `length` bytes (Content-Length). */
export class LengthBody implements BodyFraming {
  private left: number
  constructor(length: number) {
    this.left = length
  }
  get done() {
    return this.left === 0
  }
  clone(): LengthBody {
    return new LengthBody(this.left)
  }
  feed(buf: Buffer, offset: number): number {
    const n = Math.min(this.left, buf.length - offset)
    this.left -= n
    return n
  }
}

const CR = 13
const LF = 10
/** More hex digits than this in a chunk size is refused (2^60 bytes). */
const MAX_SIZE_DIGITS = 15

const hexValue = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48
  const l = c | 0x20
  return l >= 97 && l <= 102 ? l - 87 : -1
}

type ChunkState =
  | "size" // hex digits of a chunk size
  | "ext" // a chunk extension, up to CR
  | "sizeLf" // the LF after a size line
  | "data" // `left` bytes of chunk data
  | "dataCr" // the CRLF after chunk data
  | "dataLf"
  | "lineStart" // the start of a trailer line, or the CR of the final empty line
  | "line" // inside a trailer line
  | "lineLf" // the LF ending a trailer line
  | "endLf" // the LF of the final empty line
  | "done"

/** A `Transfer-Encoding: chunked` body (RFC 9112 7.1), strict about CRLF: a bare LF is broken. */
export class ChunkedBody implements BodyFraming {
  private state: ChunkState = "size"
  private left = 0
  private digits = 0
  get done() {
    return this.state === "done"
  }
  clone(): ChunkedBody {
    const copy = new ChunkedBody()
    copy.state = this.state
    copy.left = this.left
    copy.digits = this.digits
    return copy
  }
  feed(buf: Buffer, offset: number): number {
    let i = offset
    const end = buf.length
    while (i < end && this.state !== "done") {
      if (this.state === "data") {
        const n = Math.min(this.left, end - i)
        this.left -= n
        i += n
        if (this.left === 0) this.state = "dataCr"
        continue
      }
      const c = buf[i++]!
      switch (this.state) {
        case "size": {
          const v = hexValue(c)
          if (v >= 0) {
            if (++this.digits > MAX_SIZE_DIGITS) return -1
            this.left = this.left * 16 + v
          } else if (this.digits === 0) return -1
          else if (c === CR) this.state = "sizeLf"
          else if (c === 59 /* ; */ || c === 32 || c === 9) this.state = "ext"
          else return -1
          break
        }
        case "ext":
          if (c === CR) this.state = "sizeLf"
          else if (c === LF) return -1
          break
        case "sizeLf":
          if (c !== LF) return -1
          this.digits = 0
          this.state = this.left === 0 ? "lineStart" : "data"
          break
        case "dataCr":
          if (c !== CR) return -1
          this.state = "dataLf"
          break
        case "dataLf":
          if (c !== LF) return -1
          this.state = "size"
          break
        case "lineStart":
          if (c === CR) this.state = "endLf"
          else if (c === LF) return -1
          else this.state = "line"
          break
        case "line":
          if (c === CR) this.state = "lineLf"
          else if (c === LF) return -1
          break
        case "lineLf":
          if (c !== LF) return -1
          this.state = "lineStart"
          break
        case "endLf":
          if (c !== LF) return -1
          this.state = "done"
          break
      }
    }
    return i - offset
  }
}

/** A body that is already complete (none, or Content-Length: 0). */
export const NO_BODY: BodyFraming = { feed: () => 0, done: true, clone: () => NO_BODY }
