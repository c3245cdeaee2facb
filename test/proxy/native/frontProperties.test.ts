/**
 * The native front against the relay's rules, over arbitrary pipelined exchanges written in
 * arbitrary slices: every request reaches the daemon once, in order, its head rewritten as
 * docs/proxy.md says and its body unchanged; every response reaches the client once, in order,
 * without the daemon's connection headers and otherwise unchanged.
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "../../e2e/harness.js"
import { client, type FrontWorld, type RawDaemon, rawDaemon, startFront } from "./frontWorld.js"

interface Exchange {
  readonly method: "GET" | "HEAD" | "POST" | "PUT" | "DELETE"
  readonly headers: ReadonlyArray<string>
  readonly body: number
  readonly response: {
    readonly kind: "length" | "chunked" | "none" | "interim"
    readonly size: number
    readonly keepAlive: boolean
  }
}

const exchange: fc.Arbitrary<Exchange> = fc.record({
  method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE"),
  headers: fc.subarray([
    "X-A: 1",
    "Connection: keep-alive",
    "Keep-Alive: timeout=5",
    "X-Forwarded-For: 10.1.2.3",
    "TE: trailers",
    "Accept: */*",
  ]),
  body: fc.nat({ max: 3000 }),
  response: fc.record({
    kind: fc.constantFrom("length", "chunked", "none", "interim"),
    size: fc.nat({ max: 5000 }),
    keepAlive: fc.boolean(),
  }),
})

/** Bytes of `n` with a pattern that shows a byte lost, doubled or moved. */
const bytes = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 7 + seed) % 26))).join("")

const request = (e: Exchange, i: number) => {
  const body = e.method === "POST" || e.method === "PUT" ? bytes(e.body, i) : ""
  const head = [`${e.method} /r${i} HTTP/1.1`, "Host: shop.localhost", ...e.headers]
  if (body.length > 0) head.push(`Content-Length: ${body.length}`)
  return { sent: `${head.join("\r\n")}\r\n\r\n${body}`, head, body }
}

/** What the daemon must receive for a request: the end-to-end lines, then the proxy's own. */
const rewritten = (head: ReadonlyArray<string>, body: string) => {
  const dropped = /^(connection|keep-alive|te|x-forwarded-for):/i
  const kept = head.filter((l) => !dropped.test(l))
  const before = head.find((l) => /^x-forwarded-for:/i.test(l))?.split(": ")[1]
  const ff = before === undefined ? "127.0.0.1" : `${before}, 127.0.0.1`
  return `${[...kept, `x-forwarded-for: ${ff}`, "x-forwarded-host: shop.localhost", "x-forwarded-proto: http", "x-supervisor-hops: 1"].join("\r\n")}\r\n\r\n${body}`
}

/** The daemon's answer, and what the client must get of it (its connection headers dropped). */
const response = (e: Exchange, i: number) => {
  const payload = e.method === "HEAD" ? "" : bytes(e.response.size, i + 5)
  const connection = e.response.keepAlive ? ["Connection: keep-alive", "Keep-Alive: timeout=5"] : []
  const lines = (status: string, extra: ReadonlyArray<string>) => [status, `x-r: ${i}`, ...extra]
  const finish = (head: ReadonlyArray<string>, body: string) => ({
    sent: `${[...head.slice(0, 2), ...connection, ...head.slice(2)].join("\r\n")}\r\n\r\n${body}`,
    got: `${head.join("\r\n")}\r\n\r\n${body}`,
  })
  switch (e.response.kind) {
    case "none":
      return finish(lines("HTTP/1.1 204 No Content", []), "")
    case "chunked": {
      const body =
        e.method === "HEAD"
          ? ""
          : `${payload.length > 0 ? `${payload.length.toString(16)}\r\n${payload}\r\n` : ""}0\r\nx-trailer: ${i}\r\n\r\n`
      return finish(lines("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"]), body)
    }
    case "interim": {
      const final = finish(lines("HTTP/1.1 200 OK", [`Content-Length: ${e.response.size}`]), payload)
      const interim = "HTTP/1.1 100 Continue\r\n\r\n"
      return { sent: interim + final.sent, got: interim + final.got }
    }
    default:
      return finish(lines("HTTP/1.1 200 OK", [`Content-Length: ${e.response.size}`]), payload)
  }
}

let daemon: RawDaemon
let front: FrontWorld
beforeAll(async () => {
  daemon = await rawDaemon()
  front = await startFront(() => `target ID 1 127.0.0.1 ${daemon.port}`)
})
afterAll(async () => {
  await front.stop()
  daemon.close()
})

describe("the native front's relay, property-checked", () => {
  it("relays pipelined exchanges written in any slices: each once, in order, rewritten only as documented", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(exchange, { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }),
        async (exchanges, slices) => {
          const requests = exchanges.map(request)
          const answers = new Map(exchanges.map((e, i) => [`/r${i}`, response(e, i)]))
          daemon.answer = (head) => answers.get(head.split(" ")[1]!)?.sent
          const first = daemon.received.length
          const c = client(front.port)
          // the stream in slices of the given sizes, the last one the rest
          const stream = requests.map((r) => r.sent).join("")
          let at = 0
          for (const size of slices) {
            if (at >= stream.length) break
            c.write(Buffer.from(stream.slice(at, at + size), "latin1"))
            at += size
          }
          if (at < stream.length) c.write(Buffer.from(stream.slice(at), "latin1"))
          const expected = exchanges.map((e, i) => response(e, i).got).join("")
          await waitFor("every response", () => c.text.length >= expected.length, { timeout: 20_000 })
          c.socket.destroy()
          expect(c.text).toBe(expected)
          expect(daemon.received.slice(first).join("")).toBe(
            requests.map((r) => rewritten(r.head, r.body)).join(""),
          )
        },
      ),
      { numRuns: 40 },
    )
  }, 120_000)
})

describe("the native front on bad input", () => {
  it("survives arbitrary bytes from clients and daemons, and relays the next request as before", async () => {
    const header = fc.constantFrom(
      "GET / HTTP/1.1\r\nHost: shop.localhost\r\n",
      "POST /p HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 5\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n",
      "",
    )
    const noise = fc.tuple(header, fc.uint8Array({ maxLength: 600 }), fc.constantFrom("", "\r\n", "\r\n\r\n"))
    await fc.assert(
      fc.asyncProperty(noise, noise, fc.boolean(), async (fromClient, fromDaemon, closeEarly) => {
        const bytesOf = ([h, b, end]: [string, Uint8Array, string]) =>
          Buffer.concat([Buffer.from(h, "latin1"), Buffer.from(b), Buffer.from(end, "latin1")])
        daemon.answer = (_head, socket) => {
          socket.write(bytesOf(fromDaemon))
          if (closeEarly) socket.end()
          return undefined
        }
        const c = client(front.port)
        c.write("GET /first HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
        c.write(bytesOf(fromClient))
        if (closeEarly) c.socket.end()
        await new Promise((r) => setTimeout(r, 20))
        c.socket.destroy()
        // still there, and still relaying
        daemon.answer = () => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
        const next = client(front.port)
        next.write("GET /next HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
        await waitFor("the next request answered", () => next.text.endsWith("ok"), { timeout: 10_000 })
        next.socket.destroy()
        expect(front.child.exitCode).toBeNull()
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})
