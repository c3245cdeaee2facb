import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ChunkedBody, LengthBody } from "../../../src/proxy/http1/body.js"

/** Feeds `bytes` to a chunked framing in the given pieces; the bytes it took, or -1. */
const feedPieces = (bytes: Buffer, cuts: ReadonlyArray<number>) => {
  const body = new ChunkedBody()
  let taken = 0
  let from = 0
  for (const to of [...cuts, bytes.length]) {
    const piece = bytes.subarray(from, to)
    from = to
    if (body.done) break
    const n = body.feed(piece, 0)
    if (n < 0) return -1
    taken += n
  }
  return body.done ? taken : undefined
}

const chunked = (chunks: ReadonlyArray<Buffer>, trailer = "") =>
  Buffer.concat([
    ...chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from("\r\n")]),
    Buffer.from(`0\r\n${trailer}\r\n`),
  ])

describe("body framing", () => {
  it("a length body takes its bytes and no more", () => {
    const body = new LengthBody(5)
    expect(body.feed(Buffer.from("abc"), 0)).toBe(3)
    expect(body.done).toBe(false)
    expect(body.feed(Buffer.from("xdeGET /"), 1)).toBe(2)
    expect(body.done).toBe(true)
  })

  it("a chunked body ends after the last chunk and its trailers, wherever the bytes are cut", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 40 }), { maxLength: 6 }),
        fc.constantFrom("", "x-check: 1\r\n", "a: b\r\nc: d\r\n"),
        fc.array(fc.nat(), { maxLength: 6 }),
        (chunks, trailer, rawCuts) => {
          const body = chunked(
            chunks.map((c) => Buffer.from(c)),
            trailer,
          )
          const next = Buffer.from("GET / HTTP/1.1\r\n")
          const bytes = Buffer.concat([body, next])
          const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
          expect(feedPieces(bytes, cuts)).toBe(body.length)
        },
      ),
      { seed: 4242, numRuns: 300 },
    )
  })

  it("takes chunk extensions and upper-case hex sizes", () => {
    const bytes = Buffer.from("A;name=value\r\n0123456789\r\n0\r\n\r\n")
    expect(feedPieces(bytes, [])).toBe(bytes.length)
  })

  it("refuses broken framing: a bare LF, a missing size, data longer than its size", () => {
    for (const broken of ["5\n12345\r\n0\r\n\r\n", "\r\n", "3\r\n12345\r\n0\r\n\r\n", "0\r\n\n", "x\r\n"])
      expect(feedPieces(Buffer.from(broken), []), JSON.stringify(broken)).toBe(-1)
  })

  it("refuses a chunk size of more than 15 hex digits", () => {
    expect(feedPieces(Buffer.from(`${"f".repeat(16)}\r\n`), [])).toBe(-1)
  })
})
