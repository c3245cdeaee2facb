import * as http from "node:http"
import * as net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { makeProxyHandler, type Resolution } from "../../../src/proxy/handler.js"
import { createPlainProxyServer } from "../../../src/proxy/http1/plainServer.js"
import { failure } from "../../../src/proxy/pages.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0).reverse()) close()
})

const listen = (server: net.Server) =>
  new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))
  })

const serve = async (handler: http.RequestListener) => {
  const server = http.createServer(handler)
  closers.push(() => {
    server.closeAllConnections()
    server.close()
  })
  return { server, port: await listen(server) }
}

/** The plain proxy (relay and Node's server behind it) routing each slug with `resolve`. */
const proxy = async (
  resolve: (slug: string) => Resolution | Promise<Resolution>,
  timeouts: { responseTimeout?: number; idleTimeout?: number } = {},
) => {
  const options = { tld: "localhost", proto: "http" as const, resolve }
  const handler = makeProxyHandler(options)
  const plain = createPlainProxyServer(handler, {
    ...options,
    responseTimeout: timeouts.responseTimeout ?? 10_000,
    idleTimeout: timeouts.idleTimeout ?? 5_000,
  })
  closers.push(() => {
    plain.closeConnections()
    plain.server.close()
    handler.close()
  })
  return listen(plain.server)
}

const target = (port: number): Resolution => ({ _tag: "Target", port })

/** One raw connection: writes each string, collects what comes back until `done` says so or it closes. */
const exchange = (
  port: number,
  writes: ReadonlyArray<string | Buffer>,
  done: (received: string) => boolean,
  onConnected?: (socket: net.Socket) => void,
) =>
  new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer in time; got ${JSON.stringify(text)}`))
    }, 8_000)
    socket.on("connect", () => {
      for (const w of writes) socket.write(w)
      onConnected?.(socket)
    })
    socket.on("data", (d) => {
      text += d.toString("latin1")
      if (done(text)) {
        clearTimeout(timer)
        socket.destroy()
        resolve({ text, closed: false })
      }
    })
    socket.on("close", () => {
      clearTimeout(timer)
      resolve({ text, closed: true })
    })
    socket.on("error", reject)
  })

const count = (text: string, needle: string) => text.split(needle).length - 1

/** Resolves once `check` holds (polled every 5 ms); the test's timeout bounds it. */
const waitUntil = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5))
}

describe("the plain-HTTP relay", () => {
  it("relays pipelined requests in order on one connection, setting X-Forwarded-* and dropping hop-by-hop headers both ways", async () => {
    const seen: Array<http.IncomingHttpHeaders> = []
    const daemon = await serve((req, res) => {
      seen.push(req.headers)
      res.setHeader("x-app", "1")
      res.end(`hello ${req.url}`)
    })
    const port = await proxy(() => target(daemon.port))
    const req = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: shop.localhost\r\nConnection: keep-alive, X-Secret\r\nX-Secret: s\r\nX-Forwarded-For: 10.1.1.1\r\n\r\n`
    const { text } = await exchange(port, [req("/a") + req("/b") + req("/c")], (t) => t.includes("hello /c"))
    expect([...text.matchAll(/hello (\/\w)/g)].map((m) => m[1])).toEqual(["/a", "/b", "/c"])
    expect(count(text, "HTTP/1.1 200 OK")).toBe(3)
    expect(text.toLowerCase()).not.toContain("keep-alive")
    expect(text.toLowerCase()).not.toContain("connection:")
    expect(seen).toHaveLength(3)
    expect(seen[0]).toMatchObject({
      host: "shop.localhost",
      "x-forwarded-for": "10.1.1.1, 127.0.0.1",
      "x-forwarded-host": "shop.localhost",
      "x-forwarded-proto": "http",
      "x-supervisor-hops": "1",
    })
    expect(seen[0]!["x-secret"]).toBeUndefined()
  })

  it("follows HEAD, 204, 304 and 100-continue responses to the next one", async () => {
    const daemon = await serve((req, res) => {
      if (req.url === "/204") return void res.writeHead(204).end()
      if (req.url === "/304") return void res.writeHead(304, { etag: "x" }).end()
      if (req.url === "/upload") {
        let n = 0
        req.on("data", (d: Buffer) => {
          n += d.length
        })
        return void req.on("end", () => res.end(`got ${n}`))
      }
      res.setHeader("content-length", 5)
      res.end(req.method === "HEAD" ? undefined : "12345")
    })
    const port = await proxy(() => target(daemon.port))
    const h = "Host: a.localhost\r\n"
    const { text } = await exchange(
      port,
      [
        `HEAD / HTTP/1.1\r\n${h}\r\nGET /204 HTTP/1.1\r\n${h}\r\nGET /304 HTTP/1.1\r\n${h}\r\nGET / HTTP/1.1\r\n${h}\r\n`,
        `POST /upload HTTP/1.1\r\n${h}Expect: 100-continue\r\nContent-Length: 4\r\n\r\n`,
      ],
      (t) => t.includes("got 4"),
      (socket) => {
        // the body goes once the daemon said 100 Continue
        let seen = ""
        const onData = (d: Buffer) => {
          seen += d.toString("latin1")
          if (seen.includes("100 Continue")) {
            socket.off("data", onData)
            socket.write("abcd")
          }
        }
        socket.on("data", onData)
      },
    )
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
    expect(statuses).toEqual(["200", "204", "304", "200", "100", "200"])
    expect(text).toContain("12345")
  })

  it("streams large bodies both ways, chunked uploads included, without losing a byte", async () => {
    const daemon = await serve((req, res) => {
      if (req.method === "GET") {
        // 8 MiB in 64 KiB writes, chunked
        let left = 128
        const block = Buffer.alloc(64 * 1024, 7)
        const write = () => {
          while (left > 0) {
            left--
            if (!res.write(block)) return void res.once("drain", write)
          }
          res.end()
        }
        return write()
      }
      let n = 0
      req.on("data", (d: Buffer) => {
        n += d.length
      })
      req.on("end", () => res.end(String(n)))
    })
    const port = await proxy(() => target(daemon.port))
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    closers.push(() => agent.destroy())
    const upload = () =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(
          { host: "127.0.0.1", port, method: "POST", path: "/", agent, headers: { host: "up.localhost" } },
          (res) => {
            let body = ""
            res.on("data", (d: Buffer) => {
              body += d
            })
            res.on("end", () => resolve(body))
          },
        )
        req.on("error", reject)
        // no Content-Length: Node sends it chunked
        for (let i = 0; i < 80; i++) req.write(Buffer.alloc(64 * 1024 + i, 1))
        req.end()
      })
    const download = () =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, agent, headers: { host: "up.localhost" } }, (res) => {
            let n = 0
            res.on("data", (d: Buffer) => {
              n += d.length
            })
            res.on("end", () => resolve(n))
          })
          .on("error", reject)
      })
    expect(await upload()).toBe(String(80 * 64 * 1024 + (79 * 80) / 2))
    expect(await download()).toBe(128 * 64 * 1024)
    // the same kept-alive connection still works after both
    expect(await upload()).toBe(String(80 * 64 * 1024 + (79 * 80) / 2))
  })

  it("sends a streamed response's first bytes before it ends", async () => {
    let finish = () => {}
    const daemon = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("data: first\n\n")
      finish = () => res.end("data: last\n\n")
    })
    const port = await proxy(() => target(daemon.port))
    const { text } = await exchange(port, ["GET /events HTTP/1.1\r\nHost: s.localhost\r\n\r\n"], (t) =>
      t.includes("data: first"),
    )
    expect(text).not.toContain("data: last")
    finish()
  })

  it("ends a response framed by the close with the connection", async () => {
    const daemon = net.createServer((socket) => {
      socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nall of it"))
    })
    closers.push(() => daemon.close())
    const daemonPort = await listen(daemon)
    const port = await proxy(() => target(daemonPort))
    const { text, closed } = await exchange(
      port,
      ["GET / HTTP/1.1\r\nHost: c.localhost\r\n\r\n"],
      () => false,
    )
    expect(closed).toBe(true)
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n\r\nall of it$/)
  })

  it("opens a new connection when the daemon closed an idle one", async () => {
    const daemon = await serve((req, res) => res.end(`n${req.url}`))
    daemon.server.keepAliveTimeout = 50
    let closedByDaemon = false
    daemon.server.on("connection", (socket: net.Socket) => socket.on("close", () => (closedByDaemon = true)))
    const port = await proxy(() => target(daemon.port))
    const { text } = await exchange(
      port,
      ["GET /1 HTTP/1.1\r\nHost: k.localhost\r\n\r\n"],
      (t) => t.includes("n/2"),
      (s) => {
        // the next request once the daemon closed its idle connection: whether the relay saw the
        // close first or sends the request into it, the request is answered
        s.once("data", () =>
          waitUntil(() => closedByDaemon).then(() => s.write("GET /2 HTTP/1.1\r\nHost: k.localhost\r\n\r\n")),
        )
      },
    )
    expect(text).toContain("n/1")
    expect(text).toContain("n/2")
  })

  it("tells the resolver to forget what it kept when a kept target refuses, and routes again", async () => {
    const live = await serve((_req, res) => res.end("live"))
    // a port nobody listens on: an instance that stopped while the resolver still kept it
    const gone = net.createServer()
    const stale = await listen(gone)
    await new Promise<void>((done) => gone.close(() => done()))
    let kept: Resolution | undefined = target(stale)
    let forgets = 0
    const options = {
      tld: "localhost",
      proto: "http" as const,
      resolve: () => kept ?? target(live.port),
      forget: () => {
        forgets++
        kept = undefined
      },
    }
    const handler = makeProxyHandler(options)
    const plain = createPlainProxyServer(handler, { ...options, responseTimeout: 10_000, idleTimeout: 5_000 })
    closers.push(() => {
      plain.closeConnections()
      plain.server.close()
      handler.close()
    })
    const port = await listen(plain.server)
    const { text } = await exchange(port, ["GET / HTTP/1.1\r\nHost: shop.localhost\r\n\r\n"], (t) =>
      t.endsWith("live"),
    )
    expect(text).toMatch(/^HTTP\/1\.1 200 /)
    expect(forgets).toBe(1)
  })

  it("sends idempotent requests again when the daemon closes a kept-alive connection without answering them", async () => {
    // each connection answers its first request and closes at the next one, as a daemon closing
    // an idle connection just as a request arrives
    let connections = 0
    const daemon = net.createServer((socket) => {
      connections++
      let answered = false
      socket.on("data", (d) => {
        if (answered) return void socket.destroy()
        answered = true
        const line = d.toString("latin1").split("\r\n")[0] ?? ""
        socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${line.length}\r\n\r\n${line}`)
      })
    })
    closers.push(() => daemon.close())
    const daemonPort = await listen(daemon)
    const port = await proxy(() => target(daemonPort))
    for (const method of ["GET", "HEAD", "DELETE"]) {
      // the second answer's end: its body (the request line), or for HEAD its head
      const end = method === "HEAD" ? "\r\n\r\n" : `${method} /2 HTTP/1.1`
      const { text } = await exchange(
        port,
        ["GET /1 HTTP/1.1\r\nHost: r.localhost\r\n\r\n"],
        (t) => (count(t, "HTTP/1.1 200 OK") === 2 && t.endsWith(end)) || t.includes("</html>"),
        (s) => s.once("data", () => s.write(`${method} /2 HTTP/1.1\r\nHost: r.localhost\r\n\r\n`)),
      )
      expect(text, method).toContain("GET /1 HTTP/1.1")
      expect(text, method).toMatch(/HTTP\/1\.1 200 OK\r\n[\s\S]*HTTP\/1\.1 200 OK/)
      if (method !== "HEAD") expect(text, method).toContain(`${method} /2 HTTP/1.1`)
    }
    // a POST might have had its effect: it is not sent twice
    const before = connections
    const { text } = await exchange(
      port,
      ["GET /1 HTTP/1.1\r\nHost: r.localhost\r\n\r\n"],
      (t) => t.includes("502 Bad Gateway") && t.includes("</html>"),
      (s) =>
        s.once("data", () => s.write("POST /2 HTTP/1.1\r\nHost: r.localhost\r\ncontent-length: 0\r\n\r\n")),
    )
    expect(text).toContain("HTTP/1.1 502 Bad Gateway")
    expect(connections - before).toBe(1)
  })

  it("routes each request of a connection by its own Host, waiting for an asynchronous routing", async () => {
    const a = await serve((_req, res) => res.end("from a"))
    const b = await serve((_req, res) => res.end("from b"))
    const port = await proxy((slug) =>
      slug === "a" ? target(a.port) : new Promise((r) => setTimeout(() => r(target(b.port)), 50)),
    )
    const { text } = await exchange(
      port,
      [
        "GET / HTTP/1.1\r\nHost: a.localhost\r\n\r\nGET / HTTP/1.1\r\nHost: b.localhost\r\n\r\nGET / HTTP/1.1\r\nHost: a.localhost\r\n\r\n",
      ],
      (t) => count(t, "from ") === 3,
    )
    expect([...text.matchAll(/from (\w)/g)].map((m) => m[1])).toEqual(["a", "b", "a"])
  })

  it("holds a request while its routing waits (a daemon started on request) longer than the idle timeout", async () => {
    const daemon = await serve((_req, res) => res.end("started and served"))
    const port = await proxy(() => new Promise((r) => setTimeout(() => r(target(daemon.port)), 400)), {
      idleTimeout: 100,
    })
    const { text } = await exchange(port, ["GET / HTTP/1.1\r\nHost: late.localhost\r\n\r\n"], (t) =>
      t.includes("started and served"),
    )
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/)
  })

  it("answers failures with a page after the outstanding responses: 404, 508, 502 refused, 504", async () => {
    const slow = await serve(() => {})
    const ok = await serve((_req, res) => res.end("fine"))
    const gone = net.createServer()
    const closed = await listen(gone)
    await new Promise((r) => gone.close(r))
    const port = await proxy(
      (slug) =>
        slug === "ok"
          ? target(ok.port)
          : slug === "slow"
            ? target(slow.port)
            : slug === "down"
              ? target(closed)
              : failure(404, "Not Found", [`No slug ${slug} is configured.`]),
      { responseTimeout: 300 },
    )
    const plain = "Accept: text/plain\r\n"
    const notFound = await exchange(
      port,
      [`GET / HTTP/1.1\r\nHost: ok.localhost\r\n\r\nGET / HTTP/1.1\r\nHost: nope.localhost\r\n${plain}\r\n`],
      () => false,
    )
    expect(notFound.text).toMatch(/fine[\s\S]*HTTP\/1\.1 404 Not Found[\s\S]*No slug nope is configured/)
    const loop = await exchange(
      port,
      [`GET / HTTP/1.1\r\nHost: ok.localhost\r\nx-supervisor-hops: 5\r\n${plain}\r\n`],
      () => false,
    )
    expect(loop.text).toMatch(/^HTTP\/1\.1 508 Loop Detected/)
    const refused = await exchange(
      port,
      [`GET / HTTP/1.1\r\nHost: down.localhost\r\n${plain}\r\n`],
      () => false,
    )
    expect(refused.text).toMatch(/^HTTP\/1\.1 502 Bad Gateway[\s\S]*ECONNREFUSED/)
    const timedOut = await exchange(
      port,
      [`GET / HTTP/1.1\r\nHost: slow.localhost\r\n${plain}\r\n`],
      () => false,
    )
    expect(timedOut.text).toMatch(/^HTTP\/1\.1 504 Gateway Timeout/)
  })

  it("gives HTTP/1.0 and upgrades to Node's server, after the relayed responses", async () => {
    const daemon = await serve((req, res) => res.end(`v${req.httpVersion} ${req.url}`))
    daemon.server.on("upgrade", (req, socket) => {
      socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
      socket.on("data", (d) => socket.write(`echo:${d}`))
      expect(req.headers["x-forwarded-host"]).toBe("u.localhost")
    })
    const port = await proxy(() => target(daemon.port))
    const old = await exchange(port, ["GET /old HTTP/1.0\r\nHost: u.localhost\r\n\r\n"], () => false)
    expect(old.text).toContain("v1.1 /old")
    const up = await exchange(
      port,
      [
        "GET /first HTTP/1.1\r\nHost: u.localhost\r\n\r\nGET /ws HTTP/1.1\r\nHost: u.localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n",
      ],
      (t) => t.includes("echo:ping"),
      (s) => s.once("data", () => setTimeout(() => s.write("ping"), 100)),
    )
    expect(up.text).toMatch(/v1\.1 \/first[\s\S]*101 Switching Protocols[\s\S]*echo:ping/)
  })

  it("closes a connection whose chunked framing is broken", async () => {
    const daemon = await serve((req, res) => {
      req.resume()
      req.on("end", () => res.end("done"))
    })
    const port = await proxy(() => target(daemon.port))
    const { closed } = await exchange(
      port,
      ["POST / HTTP/1.1\r\nHost: x.localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"],
      () => false,
    )
    expect(closed).toBe(true)
  })
})
