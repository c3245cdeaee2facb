import { createServer, type Server } from "node:http"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { jsonClientErrors } from "../../src/api/clientErrors.js"

let server: Server
let port: number
beforeAll(async () => {
  server = jsonClientErrors(createServer((_req, res) => res.end("ok")))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as net.AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Raw bytes to the server; everything it answers until it closes the connection. */
const raw = (bytes: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(bytes))
    let text = ""
    socket.setEncoding("utf8").on("data", (d: string) => {
      text += d
    })
    socket.on("close", () => resolve(text))
    socket.on("error", reject)
  })

const parse = (answer: string) => {
  const [head = "", body = ""] = answer.split("\r\n\r\n")
  return {
    status: head.split(" ")[1],
    head: head.toLowerCase(),
    body: JSON.parse(body) as Record<string, unknown>,
  }
}

describe("jsonClientErrors (requests Node's parser refuses; found by test/fuzz)", () => {
  it("bytes that are not HTTP are a 400 with the JSON error body", async () => {
    const r = parse(await raw("GARBAGE\r\n\r\n"))
    expect(r.status).toBe("400")
    expect(r.head).toContain("content-type: application/json")
    expect(r.body).toMatchObject({ _tag: "BadRequest", message: expect.stringContaining("not valid HTTP") })
  })

  it("headers over 16 KB are a 431 with the JSON error body", async () => {
    const r = parse(await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`))
    expect(r.status).toBe("431")
    expect(r.body).toMatchObject({ _tag: "RequestHeaderFieldsTooLarge", message: expect.any(String) })
  })

  it("a request it can read is answered by the handler", async () => {
    expect(await raw("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).toContain("ok")
  })
})
