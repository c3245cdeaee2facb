/**
 * The quick commands' HTTP/1.1 client (src/quick/http1.ts, http1Body.ts): the framing read on
 * bytes, whatever the pieces the socket gives (a property test), and one exchange over a real
 * Unix socket against a hand-written server and Node's own HTTP server.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { exchange, lineReader, readAll } from "../../src/quick/http1.js"
import { parseHead } from "../../src/quick/http1Body.js"

/** The body read from `wire` given in the pieces `cuts` makes, or "bad". */
const readWire = (wire: Buffer, cuts: ReadonlyArray<number>, method = "POST") => {
  const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b)
  const pieces = [0, ...points, wire.length]
    .slice(1)
    .map((end, i, all) => wire.subarray(i === 0 ? 0 : all[i - 1], end))
  let head: Buffer = Buffer.alloc(0)
  let parsed = "more" as ReturnType<typeof parseHead>
  const body: Array<Buffer> = []
  for (const piece of pieces) {
    if (parsed === "more") {
      head = Buffer.concat([head, piece])
      parsed = parseHead(head, method)
      if (parsed === "bad") return "bad"
      if (parsed !== "more") body.push(...parsed.reader.push(head.subarray(parsed.length)))
    } else if (parsed !== "bad") body.push(...parsed.reader.push(piece))
  }
  if (typeof parsed === "string") return parsed
  return { status: parsed.status, body: Buffer.concat(body), done: parsed.reader.done }
}

const chunked = (body: Buffer, sizes: ReadonlyArray<number>) => {
  const parts: Array<Buffer> = []
  let at = 0
  for (const size of sizes) {
    if (at >= body.length) break
    const piece = body.subarray(at, at + size)
    at += piece.length
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"))
  }
  if (at < body.length)
    parts.push(
      Buffer.from(`${(body.length - at).toString(16)};ext=1\r\n`),
      body.subarray(at),
      Buffer.from("\r\n"),
    )
  parts.push(Buffer.from("0\r\nx-trailer: yes\r\n\r\n"))
  return Buffer.concat(parts)
}

describe("the framing, on bytes", () => {
  const text = fc.string({ unit: "binary", maxLength: 300 })

  it("reads a content-length or chunked body whole, however the socket cuts it", () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (s, sizes, cuts, useChunks) => {
          const body = Buffer.from(s)
          const head = useChunks
            ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            : `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`
          // bytes after the body's end (a next reply) are not the body's
          const wire = Buffer.concat([
            Buffer.from(head),
            useChunks ? chunked(body, sizes) : body,
            Buffer.from("junk"),
          ])
          const read = readWire(wire, cuts)
          expect(read).toEqual({ status: 200, body, done: true })
        },
      ),
      { numRuns: 300 },
    )
  })

  it("skips interim replies, joins repeated headers and reads a body without length to the close", () => {
    const wire = Buffer.from(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 201 Created\r\nX-A: 1\r\nx-a: 2\r\n\r\nsome é",
    )
    const parsed = parseHead(wire, "POST")
    if (typeof parsed === "string") throw new Error(parsed)
    expect(parsed.status).toBe(201)
    expect(parsed.headers.get("x-a")).toBe("1, 2")
    expect(parsed.reader.untilClose).toBe(true)
    expect(Buffer.concat(parsed.reader.push(wire.subarray(parsed.length))).toString()).toBe("some é")
    expect(parsed.reader.done).toBe(false)
  })

  it("has no body for 204, 304 and HEAD", () => {
    for (const [status, method] of [
      ["204 No Content", "POST"],
      ["304 Not Modified", "GET"],
      ["200 OK", "HEAD"],
    ] as const) {
      const parsed = parseHead(Buffer.from(`HTTP/1.1 ${status}\r\ncontent-length: 5\r\n\r\n`), method)
      expect(typeof parsed !== "string" && parsed.reader.done).toBe(true)
    }
  })

  it.each([
    ["no HTTP status line", "SSH-2.0-OpenSSH\r\n\r\n"],
    ["a header without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n"],
    ["a bad content-length", "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n"],
    ["a coding other than chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n"],
  ])("refuses %s", (_, wire) => {
    expect(parseHead(Buffer.from(wire), "GET")).toBe("bad")
  })

  it("throws on a chunk size that is no number", () => {
    const parsed = parseHead(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"), "GET")
    if (typeof parsed === "string") throw new Error(parsed)
    expect(() => parsed.reader.push(Buffer.from("zz\r\n"))).toThrow(/chunk size/)
  })

  it("throws when a chunk's data is not followed by its line end", () => {
    const parsed = parseHead(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"), "GET")
    if (typeof parsed === "string") throw new Error(parsed)
    expect(() => parsed.reader.push(Buffer.from("2\r\nabXY1\r\nc\r\n0\r\n\r\n"))).toThrow(/chunk end/)
  })

  it("splits lines on bytes, a character cut in two included", () => {
    const lines: Array<string> = []
    const feed = lineReader((l) => lines.push(l))
    const bytes = Buffer.from('été\n{"a":"ü"}\nrest')
    for (let i = 0; i < bytes.length; i++) feed(bytes.subarray(i, i + 1))
    expect(lines).toEqual(["été", '{"a":"ü"}'])
  })
})

describe("one exchange over a Unix socket", () => {
  let dir = ""
  let server: Server | undefined
  const sockets = new Set<Socket>()
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sv-http1-"))
  })
  afterEach(async () => {
    for (const s of sockets) s.destroy()
    sockets.clear()
    await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())))
    server = undefined
    rmSync(dir, { recursive: true, force: true })
  })
  const socket = () => join(dir, "api.sock")
  /** A raw server: `onRequest` gets each connection's request bytes once its head has come. */
  const rawServer = (onRequest: (s: Socket, request: string) => void) =>
    new Promise<void>((resolve) => {
      server = createServer((s) => {
        sockets.add(s)
        let got = ""
        s.on("data", (d) => {
          got += d.toString("latin1")
          if (got.includes("\r\n\r\n")) onRequest(s, got)
        })
      })
      server.listen(socket(), resolve)
    })

  it("sends the request and reads a chunked answer cut inside characters", async () => {
    const body = Buffer.from("déjà vu ✓\n".repeat(50))
    let request = ""
    await rawServer((s, got) => {
      request = got
      s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-notice: one\r\n\r\n")
      // odd pieces: a chunk ends inside a character, and the socket splits the lines further
      const wire = chunked(body, [7, 13, 1, 101])
      for (let i = 0; i < wire.length; i += 17) s.write(wire.subarray(i, i + 17))
      // the connection stays open: the reply is whole at its last chunk
    })
    const reply = await exchange({
      socket: socket(),
      method: "POST",
      path: "/api/x",
      headers: { "content-type": "application/json" },
      body: '{"é":1}',
    })
    if (typeof reply === "string") throw new Error(reply)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("x-notice")).toBe("one")
    expect((await readAll(reply))?.toString()).toBe(body.toString())
    expect(request).toMatch(/^POST \/api\/x HTTP\/1\.1\r\n/)
    expect(request).toContain("content-length: 8\r\n")
    expect(request.endsWith('\r\n\r\n{"é":1}'.replace("é", "\u00c3\u00a9"))).toBe(true)
  })

  it("reads Node's HTTP server, its body given to a reader that subscribes late", async () => {
    await new Promise<void>((resolve) => {
      const http = createHttpServer((req, res) => {
        req.resume()
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("first ")
        setTimeout(() => res.end("second"), 10)
      })
      http.on("connection", (s) => sockets.add(s))
      server = http
      http.listen(socket(), resolve)
    })
    const reply = await exchange({ socket: socket(), method: "GET", path: "/" })
    if (typeof reply === "string") throw new Error(reply)
    await new Promise((r) => setTimeout(r, 30))
    expect((await readAll(reply))?.toString()).toBe("first second")
  })

  it("stops at close: no more data and one end, whether the body came before or during the reading", async () => {
    const head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    const body = "2\r\nab\r\n2\r\ncd\r\n2\r\nef\r\n0\r\n\r\n"
    let connections = 0
    // the first connection gets the body with the head (read before the reader subscribes), the
    // second one after it (read while it reads)
    await rawServer((s) => {
      if (++connections === 1) return void s.end(head + body)
      s.write(head)
      setTimeout(() => s.end(body), 10)
    })
    for (let i = 0; i < 2; i++) {
      const reply = await exchange({ socket: socket(), method: "GET", path: "/" })
      if (typeof reply === "string") throw new Error(reply)
      const seen: Array<string> = []
      await new Promise<void>((resolve) => {
        reply.receive(
          (chunk) => {
            seen.push(chunk.toString())
            reply.close()
          },
          (whole) => {
            seen.push(`end ${whole}`)
            setTimeout(resolve, 20) // a second end or more data would come meanwhile
          },
        )
      })
      expect(seen).toEqual(["ab", "end false"])
    }
  })

  it("says unreachable when nothing listens, and no reply when the connection closes first", async () => {
    expect(await exchange({ socket: socket(), method: "GET", path: "/" })).toBe("unreachable")
    await rawServer((s) => s.end("HTTP/1.1 200 O"))
    expect(await exchange({ socket: socket(), method: "GET", path: "/" })).toBe("no reply")
  })

  it("gives up after its timeout: a reply that stops coming is not whole, and no head is no reply", async () => {
    await rawServer((s, got) => {
      if (got.startsWith("GET /partial ")) s.write("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
    })
    const reply = await exchange({ socket: socket(), method: "GET", path: "/partial", timeoutMs: 50 })
    if (typeof reply === "string") throw new Error(reply)
    expect(await readAll(reply)).toBeUndefined()
    expect(await exchange({ socket: socket(), method: "GET", path: "/silent", timeoutMs: 50 })).toBe(
      "no reply",
    )
  })
})
