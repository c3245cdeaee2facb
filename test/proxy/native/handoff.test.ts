import * as net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { type HandOffReceiver, parseHandOffLine, receiveHandOff } from "../../../src/proxy/native/handoff.js"
import { failure } from "../../../src/proxy/pages.js"
import { waitFor } from "../../e2e/harness.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

describe("the hand-off line", () => {
  it("reads each code and refuses anything else", () => {
    expect(parseHandOffLine("127.0.0.1 0 0")).toEqual({ _tag: "Relay", remote: "127.0.0.1", forget: false })
    expect(parseHandOffLine("::1 1 0")).toEqual({ _tag: "Relay", remote: "::1", forget: true })
    expect(parseHandOffLine("- 2 17")).toEqual({ _tag: "Kept", remote: "", token: 17 })
    expect(parseHandOffLine("10.0.0.2 502 8080")).toEqual({
      _tag: "Silent",
      remote: "10.0.0.2",
      status: 502,
      port: 8080,
    })
    expect(parseHandOffLine("10.0.0.2 504 8080")).toEqual({
      _tag: "Silent",
      remote: "10.0.0.2",
      status: 504,
      port: 8080,
    })
    for (const bad of [
      "",
      "127.0.0.1",
      "127.0.0.1 5 0",
      "127.0.0.1 0",
      "127.0.0.1 0 x",
      "127.0.0.1 0 0 extra",
      " 0 0",
    ])
      expect(parseHandOffLine(bad)).toBeUndefined()
  })
})

/** A hand-off socket served by receiveHandOff; `send` writes one connection's bytes and collects the answer. */
const receiver = async (overrides: Partial<HandOffReceiver> = {}) => {
  const relayed: Array<{ remote: string | undefined; bytes: string }> = []
  const r: HandOffReceiver = {
    relay: (socket) => {
      const entry = { remote: socket.remoteAddress, bytes: "" }
      relayed.push(entry)
      socket.on("data", (d) => {
        entry.bytes += d.toString("latin1")
      })
    },
    forget: () => {},
    kept: () => undefined,
    responseTimeout: 120_000,
    ...overrides,
  }
  const server = net.createServer((socket) => receiveHandOff(socket, r))
  const port = await new Promise<number>((done) =>
    server.listen(0, "127.0.0.1", () => done((server.address() as net.AddressInfo).port)),
  )
  closers.push(() => server.close())
  const send = (bytes: string) => {
    const socket = net.connect(port, "127.0.0.1")
    const got = { text: "", closed: false }
    socket.on("data", (d) => {
      got.text += d.toString("latin1")
    })
    socket.on("close", () => {
      got.closed = true
    })
    socket.write(bytes)
    closers.push(() => socket.destroy())
    return got
  }
  return { relayed, send }
}

describe("receiving a hand-off", () => {
  it("gives the relay the bytes after the line, with the client's address as the socket's, forgetting first when asked", async () => {
    let forgotten = 0
    const { relayed, send } = await receiver({ forget: () => void forgotten++ })
    send("192.168.1.9 1 0\nGET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("relayed", () => relayed[0]?.bytes.endsWith("\r\n\r\n"))
    expect(relayed[0]).toEqual({
      remote: "192.168.1.9",
      bytes: "GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n",
    })
    expect(forgotten).toBe(1)
  })

  it("answers a kept failure as the request's Accept asks, then closes", async () => {
    const { send } = await receiver({
      kept: (token) => (token === 7 ? failure(404, "Not Found", ["No slug nope."]) : undefined),
    })
    const got = send("127.0.0.1 2 7\nGET / HTTP/1.1\r\nHost: nope.localhost\r\nAccept: text/plain\r\n\r\n")
    await waitFor("the page", () => got.closed)
    expect(got.text).toMatch(/^HTTP\/1\.1 404 Not Found\r\ncontent-type: text\/plain; charset=utf-8\r\n/)
    expect(got.text).toContain("connection: close\r\n\r\n404 Not Found\n\nNo slug nope.\n")
  })

  it("answers a daemon's silence with the relay's own 502 and 504 pages, a HEAD without a body", async () => {
    const { send } = await receiver({ responseTimeout: 2000 })
    const closed = send(
      "127.0.0.1 502 5173\nPOST /p HTTP/1.1\r\nHost: shop.localhost\r\nAccept: text/plain\r\ncontent-length: 2\r\n\r\nhi",
    )
    const slow = send("127.0.0.1 504 5173\nHEAD / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("both pages", () => closed.closed && slow.closed)
    expect(closed.text).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/)
    expect(closed.text).toContain("The daemon on port 5173 closed the connection without a response.")
    expect(slow.text).toMatch(/^HTTP\/1\.1 504 Gateway Timeout\r\n/)
    expect(slow.text.endsWith("\r\n\r\n")).toBe(true)
  })

  it("drops a connection whose line is not one", async () => {
    const { relayed, send } = await receiver()
    const got = send("nonsense\nGET / HTTP/1.1\r\n\r\n")
    await waitFor("closed", () => got.closed)
    expect(relayed).toEqual([])
    expect(got.text).toBe("")
  })
})
