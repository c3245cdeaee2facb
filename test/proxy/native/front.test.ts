import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import * as net from "node:net"
import * as tls from "node:tls"
import { afterEach, describe, expect, it } from "vitest"
import { waitFor } from "../../e2e/harness.js"
import { client, FRONT, type FrontWorld, frontTls, rawDaemon, responses, startFront } from "./frontWorld.js"

const open: Array<{ stop: () => unknown } | { close: () => unknown }> = []
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await ("stop" in o ? o.stop() : o.close())
})

const world = async (options: { idle?: number; responseTimeout?: number } = {}) => {
  const daemon = await rawDaemon()
  const front = await startFront(
    (host) => (host.startsWith("shop.") ? `target ID 1 127.0.0.1 ${daemon.port}` : "node ID 0 0"),
    options,
  )
  open.push(daemon, front)
  return { daemon, front }
}

const routes = (front: FrontWorld) => front.lines.filter((l) => l.startsWith("route "))

describe("the proxy's native front (dist/proxy-front)", () => {
  it("relays a request with the forwarding headers, without hop-by-hop ones, and keeps both connections", async () => {
    const { daemon, front } = await world()
    daemon.answer = () =>
      "HTTP/1.1 200 OK\r\nConnection: keep-alive, x-private\r\nKeep-Alive: timeout=5\r\nx-private: 1\r\nx-kept: yes\r\ncontent-length: 5\r\n\r\nhello"
    const c = client(front.port)
    c.write(
      "GET /a?b=1 HTTP/1.1\r\nHost: shop.localhost:7080\r\nX-Forwarded-For: 9.9.9.9\r\nConnection: keep-alive, x-drop\r\nx-drop: 1\r\nTE: trailers\r\nAccept: */*\r\n\r\n",
    )
    await waitFor("the first response", () => c.text.endsWith("hello"))
    expect(c.text).toBe("HTTP/1.1 200 OK\r\nx-kept: yes\r\ncontent-length: 5\r\n\r\nhello")
    expect(daemon.received[0]).toBe(
      "GET /a?b=1 HTTP/1.1\r\nHost: shop.localhost:7080\r\nAccept: */*\r\nx-forwarded-for: 9.9.9.9, 127.0.0.1\r\nx-forwarded-host: shop.localhost:7080\r\nx-forwarded-proto: http\r\nx-supervisor-hops: 1\r\n\r\n",
    )
    // the second request: the same connections, the host's targets kept
    c.write("GET /two HTTP/1.1\r\nHost: shop.localhost:7080\r\nX-Supervisor-Hops: 2\r\n\r\n")
    await waitFor("the second response", () => responses(c.text) === 2 && c.text.endsWith("hello"))
    expect(daemon.connections).toBe(1)
    expect(daemon.received[0]).toContain(
      "GET /two HTTP/1.1\r\nHost: shop.localhost:7080\r\nx-forwarded-for: 127.0.0.1\r\n",
    )
    expect(daemon.received[0]).toContain("x-supervisor-hops: 3\r\n\r\n")
    expect(routes(front)).toEqual(["route 1 0 shop.localhost:7080"])
  })

  it("follows chunked, HEAD, 204, 304 and interim responses to where each ends", async () => {
    const { daemon, front } = await world()
    const answers: Record<string, string> = {
      "/chunked":
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nx-trailer: t\r\n\r\n",
      "/head": "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n",
      "/none": "HTTP/1.1 204 No Content\r\n\r\n",
      "/same": "HTTP/1.1 304 Not Modified\r\ncontent-length: 7\r\n\r\n",
      "/interim":
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nfin",
    }
    daemon.answer = (head) => answers[head.split(" ")[1]!]
    const c = client(front.port)
    const paths = ["/chunked", "/head", "/none", "/same", "/interim"]
    let expected = ""
    for (const path of paths) {
      const method = path === "/head" ? "HEAD" : "GET"
      c.write(`${method} ${path} HTTP/1.1\r\nHost: shop.localhost\r\n\r\n`)
      expected += answers[path]
      await waitFor(`the answer to ${path}`, () => c.text === expected)
    }
    expect(daemon.connections).toBe(1)
  })

  it("answers pipelined requests in order, one at a time", async () => {
    const { daemon, front } = await world()
    let n = 0
    daemon.answer = (head) =>
      `HTTP/1.1 200 OK\r\ncontent-length: ${head.split(" ")[1]!.length}\r\nx-n: ${++n}\r\n\r\n${head.split(" ")[1]}`
    const c = client(front.port)
    c.write(
      "GET /1 HTTP/1.1\r\nHost: shop.localhost\r\n\r\nGET /22 HTTP/1.1\r\nHost: shop.localhost\r\n\r\nGET /333 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n",
    )
    await waitFor("three responses", () => c.text.endsWith("/333"))
    expect(c.text.match(/\r\n\r\n\/\d+/g)).toEqual(["\r\n\r\n/1", "\r\n\r\n/22", "\r\n\r\n/333"])
  })

  it("carries a large body each way unchanged, reading a side only while the other takes it", async () => {
    const { daemon, front } = await world()
    const big = Buffer.alloc(4 * 1024 * 1024, "abcdefghij")
    daemon.answer = (head) =>
      head.startsWith("POST")
        ? "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"
        : Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n`), big])
    const c = client(front.port)
    c.write(
      Buffer.concat([
        Buffer.from(`POST /up HTTP/1.1\r\nHost: shop.localhost\r\ncontent-length: ${big.length}\r\n\r\n`),
        big,
      ]),
    )
    await waitFor("the upload answered", () => c.text.startsWith("HTTP/1.1 201"), { timeout: 30_000 })
    const sent = daemon.received[0]!
    expect(sent.length - sent.indexOf("\r\n\r\n") - 4).toBe(big.length)
    expect(sent.endsWith(big.toString("latin1").slice(-1000))).toBe(true)
    c.text = ""
    // the client reads nothing for a while: the front stops reading the daemon
    c.socket.pause()
    c.write("GET /down HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await new Promise((r) => setTimeout(r, 300))
    c.socket.resume()
    await waitFor("the download whole", () => c.text.length >= big.length, { timeout: 30_000 })
    expect(c.text.slice(c.text.indexOf("\r\n\r\n") + 4)).toBe(big.toString("latin1"))
  })

  it("hands the worker what it does not relay itself, from that request on, with the client's address", async () => {
    const { front } = await world()
    const cases = [
      "GET /no-host HTTP/1.1\r\n\r\n",
      "GET /old HTTP/1.0\r\nHost: shop.localhost\r\n\r\n",
      "POST /chunked HTTP/1.1\r\nHost: shop.localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "GET /ws HTTP/1.1\r\nHost: shop.localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
      "GET /loop HTTP/1.1\r\nHost: shop.localhost\r\nX-Supervisor-Hops: 5\r\n\r\n",
      "GET /other HTTP/1.1\r\nHost: other.localhost\r\n\r\n",
      "GET /dup HTTP/1.1\r\nHost: shop.localhost\r\nHost: shop.localhost\r\n\r\n",
      "GET /fold HTTP/1.1\r\nHost: shop.localhost\r\nX-A: 1\r\n  folded\r\n\r\n",
    ]
    for (const [i, request] of cases.entries()) {
      const c = client(front.port)
      c.write(request)
      await waitFor(
        `the hand-off of ${request.split("\r\n")[0]}`,
        () => front.handed[i] === `127.0.0.1 0 0\n${request}`,
      )
      await waitFor("the worker's answer relayed", () => c.text.startsWith("HTTP/1.1 299 Handed") && c.closed)
    }
  })

  it("hands over a failure the worker answers, and the silence of a daemon (502, 504)", async () => {
    const { daemon, front } = await world({ responseTimeout: 300 })
    front.router = (host) =>
      host.startsWith("down.") ? "node ID 2 17" : `target ID 1 127.0.0.1 ${daemon.port}`
    const down = client(front.port)
    down.write("GET / HTTP/1.1\r\nHost: down.localhost\r\nAccept: text/plain\r\n\r\n")
    await waitFor(
      "the failure handed over",
      () =>
        front.handed[0] ===
        "127.0.0.1 2 17\nGET / HTTP/1.1\r\nHost: down.localhost\r\nAccept: text/plain\r\n\r\n",
    )
    // a POST the daemon drops without an answer: not sent again
    daemon.answer = (_head, socket) => void socket.destroy()
    const post = client(front.port)
    post.write("POST /p HTTP/1.1\r\nHost: shop.localhost\r\ncontent-length: 2\r\n\r\nhi")
    await waitFor(
      "the 502 handed over",
      () =>
        front.handed[1] ===
        `127.0.0.1 502 ${daemon.port}\nPOST /p HTTP/1.1\r\nHost: shop.localhost\r\ncontent-length: 2\r\n\r\n`,
    )
    // a daemon that says nothing within the response timeout
    daemon.answer = () => undefined
    const silent = client(front.port)
    silent.write("GET /slow HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor(
      "the 504 handed over",
      () =>
        front.handed[2] ===
        `127.0.0.1 504 ${daemon.port}\nGET /slow HTTP/1.1\r\nHost: shop.localhost\r\n\r\n`,
    )
  })

  it("sends a repeatable request again through the worker when a kept-alive daemon connection closes first", async () => {
    const { daemon, front } = await world()
    const c = client(front.port)
    c.write("GET /1 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the first answer", () => c.text.endsWith("ok"))
    daemon.answer = (_head, socket) => void socket.destroy()
    c.write("GET /2 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor(
      "the second handed over",
      () => front.handed[0] === "127.0.0.1 0 0\nGET /2 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n",
    )
  })

  it("hands over with its kept targets forgotten when a target refuses the connection", async () => {
    const { daemon, front } = await world()
    const c = client(front.port)
    c.write("GET /1 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the first answer", () => c.text.endsWith("ok"))
    c.socket.end()
    daemon.close()
    await waitFor(
      "the daemon's port closed",
      () =>
        new Promise<boolean>((done) => {
          const probe = net.connect(daemon.port, "127.0.0.1")
          probe.on("connect", () => done(!probe.destroy()))
          probe.on("error", () => done(true))
        }),
    )
    const next = client(front.port)
    next.write("GET /2 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor(
      "handed over to route again",
      () => front.handed[0] === "127.0.0.1 1 0\nGET /2 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n",
    )
    // the kept targets went: the next connection asks again
    const third = client(front.port)
    third.write("GET /3 HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("asked again", () => routes(front).length === 2)
  })

  it("closes an idle client connection, and forgets its kept targets when told", async () => {
    const { front } = await world({ idle: 300 })
    const c = client(front.port)
    c.write("GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the answer", () => c.text.endsWith("ok"))
    await waitFor("the idle connection closed", () => c.closed)
    front.send("forget")
    const d = client(front.port)
    d.write("GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the answer", () => d.text.endsWith("ok"))
    expect(routes(front).length).toBe(2)
  })

  it("stops accepting when told: says so, frees its port, lets a response finish, then exits", async () => {
    const { daemon, front } = await world()
    let held: net.Socket | undefined
    daemon.answer = (_head, socket) => {
      held = socket
      return undefined
    }
    const busy = client(front.port)
    busy.write("GET /slow HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the request at the daemon", () => held !== undefined)
    front.send("stop")
    await waitFor("notaccepting", () => front.lines.includes("notaccepting"))
    const again = net.createServer()
    await new Promise<void>((done) => again.listen(front.port, "127.0.0.1", done))
    again.close()
    held!.write("HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\ndone")
    await waitFor(
      "the response finished and the connection closed",
      () => busy.text.endsWith("done") && busy.closed,
    )
    expect(await front.exited).toBe(0)
  })

  it("keeps Host and Content-Length when Connection names them: the body stays this request's", async () => {
    const { daemon, front } = await world()
    const c = client(front.port)
    c.write(
      "POST /p HTTP/1.1\r\nHost: shop.localhost\r\nConnection: content-length, host\r\nContent-Length: 32\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    await waitFor("the answer", () => c.text.endsWith("ok"))
    expect(daemon.received[0]).toBe(
      "POST /p HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 32\r\nx-forwarded-for: 127.0.0.1\r\nx-forwarded-host: shop.localhost\r\nx-forwarded-proto: http\r\nx-supervisor-hops: 1\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n",
    )
  })

  it("ends a connection whose daemon answered early and closed while the body still comes", async () => {
    const { daemon, front } = await world()
    // the daemon answers at the head, without reading the body
    daemon.onHead = (_head, socket) =>
      void socket.end("HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\n\r\n")
    const c = client(front.port)
    c.write("POST /big HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 10000000\r\n\r\n")
    for (let i = 0; i < 20; i++) c.write(Buffer.alloc(16 * 1024, 120))
    await waitFor("the 413, then the close", () => c.text.startsWith("HTTP/1.1 413") && c.closed)
  })

  it("answers every request read before the client's end, and hands a host too long for a name to the worker", async () => {
    const { front } = await world()
    const c = client(front.port)
    c.write("GET /a HTTP/1.1\r\nHost: shop.localhost\r\n\r\nGET /b HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    c.socket.end()
    await waitFor("both answered, then the close", () => c.closed)
    expect(c.text).toBe("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".repeat(2))
    const long = client(front.port)
    const host = `${"h".repeat(2000)}.localhost`
    long.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`)
    await waitFor("handed over", () =>
      front.handed[0]?.startsWith(`127.0.0.1 0 0\nGET / HTTP/1.1\r\nHost: ${host}`),
    )
    expect(routes(front)).toEqual(["route 1 0 shop.localhost"])
  })

  it("counts a slow upload as the daemon's activity: no 504 while the body still goes", async () => {
    // the body takes 3 s, 1.5 times the timeout; no gap between two pieces comes near it, even
    // with this process stalled for a second
    const { daemon, front } = await world({ responseTimeout: 2000 })
    const c = client(front.port)
    c.write("POST /slow HTTP/1.1\r\nHost: shop.localhost\r\nContent-Length: 30\r\n\r\n")
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 100))
      c.write("x")
    }
    await waitFor("the answer", () => c.text.endsWith("ok"))
    expect(front.handed).toEqual([])
    expect(daemon.received[0]).toMatch(new RegExp(`\r\n\r\n${"x".repeat(30)}$`))
  })

  it("out of file descriptors, waits for a connection to end instead of spinning, then accepts again", async () => {
    const daemon = await rawDaemon()
    const front = await startFront(() => `target ID 1 127.0.0.1 ${daemon.port}`, { maxFiles: 16 })
    open.push(daemon, front)
    const clients = Array.from({ length: 16 }, () => client(front.port))
    await waitFor("the clients connected", () => clients.every((c) => c.socket.readyState === "open"))
    const cpu = () => {
      const fields = readFileSync(`/proc/${front.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      return Number(fields[11]) + Number(fields[12])
    }
    const before = cpu()
    await new Promise((r) => setTimeout(r, 1000))
    // a spinning loop would take most of a core (~100 ticks a second)
    expect(cpu() - before).toBeLessThan(30)
    for (const c of clients) c.socket.destroy()
    const next = client(front.port)
    next.write("GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("served again", () => next.text.endsWith("ok"))
  })

  it("says why it cannot listen", async () => {
    const taken = net.createServer()
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done))
    open.push(taken)
    const r = spawnSync(
      FRONT,
      ["127.0.0.1", String((taken.address() as net.AddressInfo).port), "@x", "5000", "1000"],
      {
        encoding: "utf8",
        input: "",
      },
    )
    expect(r.status).toBe(1)
    expect(r.stdout).toMatch(/^failed EADDRINUSE /)
  })
})

describe("the native front over TLS", () => {
  const tlsWorld = async () => {
    const daemon = await rawDaemon()
    const front = await startFront(
      (host) => (host.startsWith("shop.") ? `target ID 1 127.0.0.1 ${daemon.port}` : "node ID 0 0"),
      { tls: true },
    )
    open.push(daemon, front)
    return { daemon, front }
  }
  /** A TLS client of the front, not waiting for its handshake; kept until the test ends. */
  const tlsClient = (port: number, servername: string, alpn: Array<string>, onSecure?: () => void) => {
    const socket = tls.connect(
      { port, host: "127.0.0.1", servername, ca: frontTls().ca.certPem, ALPNProtocols: alpn },
      onSecure,
    )
    open.push({ close: () => socket.destroy() })
    return socket
  }
  const connect = (port: number, servername: string, alpn: Array<string>) =>
    new Promise<tls.TLSSocket>((done, fail) => {
      const socket = tlsClient(port, servername, alpn, () => done(socket))
      socket.on("error", fail)
    })
  /** What `socket` has received so far, as text. */
  const received = (socket: tls.TLSSocket) => {
    let text = ""
    socket.on("data", (d: Buffer) => {
      text += d.toString("latin1")
    })
    return () => text
  }
  const H2_PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
  /** Sends HTTP/2's preface and waits for the worker to be handed it, decrypted. */
  const h2HandedOver = async (front: { handed: Array<string> }, socket: tls.TLSSocket) => {
    socket.write(H2_PREFACE)
    await waitFor("HTTP/2 handed over", () => front.handed[0] === `127.0.0.1 3 0\n${H2_PREFACE}`)
  }

  it("relays HTTP/1.1 with the name's own certificate and X-Forwarded-Proto https", async () => {
    const { daemon, front } = await tlsWorld()
    const socket = await connect(front.port, "shop.localhost", ["http/1.1"])
    expect(socket.alpnProtocol).toBe("http/1.1")
    expect(socket.getPeerCertificate().subject.CN).toBe("shop.localhost")
    const text = received(socket)
    socket.write("GET /s HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("the answer", () => text().endsWith("ok"))
    expect(daemon.received[0]).toContain("x-forwarded-proto: https\r\n")
    expect(front.lines.filter((l) => l.startsWith("cert "))).toEqual(["cert 1 shop.localhost"])
    // a second connection: the certificate is kept
    const again = await connect(front.port, "shop.localhost", ["http/1.1"])
    again.destroy()
    expect(front.lines.filter((l) => l.startsWith("cert ")).length).toBe(1)
  })

  it("reads what came with the handshake's last flight and records read at once, over HTTP/1.1 and HTTP/2", async () => {
    const { daemon, front } = await tlsWorld()
    // written before the handshake ends: the client sends them right after its Finished, and the
    // front reads them together (read-ahead), so no event of the socket announces the second
    const h1 = tlsClient(front.port, "shop.localhost", ["http/1.1"])
    const text = received(h1)
    h1.write("GET /a HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    h1.write("GET /b HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("both answers", () => text().split("HTTP/1.1 200").length === 3 && text().endsWith("ok"))
    expect(daemon.received.join("")).toMatch(/GET \/a [\s\S]*GET \/b /)
    await h2HandedOver(front, tlsClient(front.port, "shop.localhost", ["h2"]))
  })

  it("gives a name outside the TLD the TLD's certificate, and hands HTTP/2 and plain HTTP to the worker", async () => {
    const { front } = await tlsWorld()
    const other = await connect(front.port, "example.com", ["http/1.1"]).catch((e: Error) => e)
    // the TLD's certificate does not name example.com: the client refuses it
    expect(String(other)).toMatch(/altnames|does not match/i)
    const h2 = await connect(front.port, "shop.localhost", ["h2", "http/1.1"])
    expect(h2.alpnProtocol).toBe("h2")
    await h2HandedOver(front, h2)
    const plain = client(front.port)
    plain.write("GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n")
    await waitFor("plain HTTP handed over", () =>
      front.handed[1]?.startsWith(`127.0.0.1 4 ${front.port}\nGET / HTTP/1.1\r\n`),
    )
  })
})
