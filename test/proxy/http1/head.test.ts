import { describe, expect, it } from "vitest"
import { parseRequestHead, parseResponseHead } from "../../../src/proxy/http1/head.js"

const request = (text: string) => {
  const buf = Buffer.from(text, "latin1")
  return parseRequestHead(buf, 0, buf.indexOf("\r\n\r\n"))
}
const response = (text: string) => {
  const buf = Buffer.from(text, "latin1")
  return parseResponseHead(buf, 0, buf.indexOf("\r\n\r\n"))
}

describe("request heads", () => {
  it("keeps the request line and end-to-end headers, drops hop-by-hop ones and those named in Connection", () => {
    const head = request(
      "POST /a?b=1 HTTP/1.1\r\nHost: shop.localhost:7080\r\nConnection: keep-alive, X-Secret\r\nKeep-Alive: timeout=5\r\nX-Secret: 1\r\nTE: trailers\r\nProxy-Authorization: x\r\nAccept: text/plain\r\nContent-Length: 3\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-For: 10.0.0.2\r\nX-Forwarded-Proto: ftp\r\nX-Supervisor-Hops: 2\r\n\r\n",
    )
    expect(head).toEqual({
      _tag: "Request",
      method: "POST",
      host: "shop.localhost:7080",
      hops: 2,
      accept: "text/plain",
      body: 3,
      kept: "POST /a?b=1 HTTP/1.1\r\nHost: shop.localhost:7080\r\nAccept: text/plain\r\nContent-Length: 3",
      forwardedFor: "10.0.0.1, 10.0.0.2",
    })
  })

  it("keeps Host and the framing headers even when Connection names them (the body stays this request's)", () => {
    const head = request(
      "POST / HTTP/1.1\r\nHost: a.localhost\r\nConnection: content-length, host, x-a\r\nX-A: 1\r\nContent-Length: 5\r\n\r\n",
    )
    expect(head._tag === "Request" && head.kept).toBe(
      "POST / HTTP/1.1\r\nHost: a.localhost\r\nContent-Length: 5",
    )
    const chunked = request(
      "PUT / HTTP/1.1\r\nHost: a.localhost\r\nConnection: transfer-encoding\r\nTransfer-Encoding: chunked\r\n\r\n",
    )
    expect(chunked._tag === "Request" && chunked.kept).toContain("Transfer-Encoding: chunked")
  })

  it("relays chunked framing as it is", () => {
    const head = request("PUT / HTTP/1.1\r\nhost: a.localhost\r\ntransfer-encoding: Chunked\r\n\r\n")
    expect(head._tag === "Request" && head.body).toBe("chunked")
    expect(head._tag === "Request" && head.kept).toContain("transfer-encoding: Chunked")
  })

  it("leaves to Node's parser what it could read differently: smuggling shapes, HTTP/1.0, upgrades", () => {
    for (const text of [
      "GET / HTTP/1.0\r\nhost: a.localhost\r\n\r\n",
      "GET / HTTP/1.1\r\n\r\n", // no Host
      "GET / HTTP/1.1\r\nhost: a\r\nhost: b\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 3\r\ncontent-length: 3\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\ntransfer-encoding: gzip, chunked\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: -1\r\n\r\n",
      "POST / HTTP/1.1\r\nhost: a\r\ncontent-length : 3\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: a\r\nx: folded\r\n continued\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: a\nx: bare-lf\r\n\r\n",
      "GET / HTTP/1.1\r\nhost: a\r\nx: nul\u0000\r\n\r\n",
      "GET /ws HTTP/1.1\r\nhost: a\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n",
      "CONNECT a:443 HTTP/1.1\r\nhost: a\r\n\r\n",
      "GET  / HTTP/1.1\r\nhost: a\r\n\r\n",
    ])
      expect(request(text)._tag, JSON.stringify(text)).toBe("Other")
  })
})

describe("response heads", () => {
  it("reads the framing: length, chunked (last coding), or to the close", () => {
    expect(response("HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n")).toEqual({ status: 200, body: 12 })
    expect(response("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").body).toBe("chunked")
    expect(response("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n").body).toBe("close")
    expect(response("HTTP/1.1 200 OK\r\n\r\n").body).toBe("close")
    expect(response("HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n").body).toBe("close")
    expect(response("garbage\r\n\r\n")).toEqual({ status: 0, body: "close" })
  })

  it("drops the daemon's connection headers, keeping the framing and a 101's upgrade", () => {
    const head = response(
      "HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Conn\r\nKeep-Alive: timeout=5\r\nX-Conn: 1\r\nTransfer-Encoding: chunked\r\nX-App: 2\r\n\r\n",
    )
    expect(head.rewritten).toBe("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-App: 2\r\n\r\n")
    expect(response("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").rewritten).toBeUndefined()
    expect(
      response("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        .rewritten,
    ).toBeUndefined()
  })
})
