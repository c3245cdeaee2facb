import * as http from "node:http"
import * as http2 from "node:http2"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { listeningAddresses, loopbackFor } from "../../src/proxy/address.js"
import { makeProxyHandler, type Resolution } from "../../src/proxy/handler.js"
import { failure, renderFailure } from "../../src/proxy/pages.js"

const closers: Array<() => void> = []
afterEach(() => {
  for (const close of closers.splice(0)) close()
})

const serve = (handler: http.RequestListener) =>
  new Promise<number>((resolve) => {
    const server = http.createServer(handler)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
    closers.push(() => {
      server.closeAllConnections()
      server.close()
    })
  })

const proxy = async (resolve: (slug: string) => Promise<Resolution>, responseTimeout?: number) => {
  const handler = makeProxyHandler({
    tld: "localhost",
    proto: "http",
    resolve,
    ...(responseTimeout === undefined ? {} : { responseTimeout }),
  })
  closers.push(handler.close)
  return serve(handler.request)
}

const get = (port: number, headers: http.OutgoingHttpHeaders) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, headers, agent: false }, (res) => {
        let body = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      })
      .on("error", reject)
  })

describe("the proxy handler", () => {
  it("routes by Host to the slug's port and asks the resolver for that slug", async () => {
    const target = await serve((req, res) => res.end(`hello ${req.headers.host}`))
    const asked: Array<string> = []
    const port = await proxy(async (slug) => {
      asked.push(slug)
      return { _tag: "Target", port: target }
    })
    expect(await get(port, { host: "shop.localhost" })).toEqual({ status: 200, body: "hello shop.localhost" })
    expect(asked).toEqual(["shop"])
  })

  it("answers a loop (more than 5 hops) with 508 without resolving", async () => {
    const port = await proxy(async () => {
      throw new Error("not asked")
    })
    const r = await get(port, { host: "shop.localhost", "x-supervisor-hops": "5", accept: "text/plain" })
    expect(r.status).toBe(508)
    expect(r.body).toMatch(/^508 Loop Detected/)
  })

  it("answers a host outside the TLD with 404, a resolver's failure with its page", async () => {
    const port = await proxy(async (slug) => failure(404, "Not Found", [`No slug ${slug} is configured.`]))
    expect((await get(port, { host: "example.com" })).status).toBe(404)
    const r = await get(port, { host: "nope.localhost" })
    expect(r.status).toBe(404)
    expect(r.body).toContain("No slug nope is configured.")
  })

  it("is 502 when nothing listens on the port, 504 when the daemon sends no response in time", async () => {
    const closed = await serve(() => {})
    closers.pop()?.()
    const refused = await proxy(async () => ({ _tag: "Target", port: closed }))
    expect((await get(refused, { host: "a.localhost" })).status).toBe(502)
    const silent = await serve(() => {})
    const slow = await proxy(async () => ({ _tag: "Target", port: silent }), 200)
    const r = await get(slow, { host: "a.localhost", accept: "text/plain" })
    expect(r.status).toBe(504)
    expect(r.body).toContain("no response within")
  })
})

describe("the proxy handler's streaming", () => {
  it("passes a request body on as it arrives: the daemon answers before the client ends it", async () => {
    const target = await serve((req, res) => req.once("data", (d: Buffer) => res.end(`got ${d.toString()}`)))
    const port = await proxy(async () => ({ _tag: "Target", port: target }))
    const req = http.request({ host: "127.0.0.1", port, method: "POST", headers: { host: "up.localhost" } })
    const body = new Promise<string>((resolve) =>
      req.on("response", (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d
        })
        res.on("end", () => resolve(text))
      }),
    )
    req.write("first chunk")
    expect(await body).toBe("got first chunk")
    req.destroy()
  })

  it("reaches a daemon listening on ::1 only, found from /proc/net/tcp6", async () => {
    const server = http.createServer((_req, res) => res.end("v6"))
    const listening = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false))
      server.listen(0, "::1", () => resolve(true))
    })
    if (!listening) return // no IPv6 loopback on this machine
    closers.push(() => server.close())
    const target = (server.address() as AddressInfo).port
    expect(loopbackFor(target)).toBe("::1")
    const port = await proxy(async () => ({ _tag: "Target", port: target, address: loopbackFor(target) }))
    expect(await get(port, { host: "v6.localhost" })).toEqual({ status: 200, body: "v6" })
  })
})

describe("the proxy handler over HTTP/2", () => {
  it("routes by :authority and drops the daemon's connection headers (HTTP/2 forbids them)", async () => {
    const target = await serve((req, res) => {
      res.setHeader("connection", "keep-alive")
      res.setHeader("keep-alive", "timeout=5")
      res.end(`h2 ${req.headers.host} ${req.headers["x-forwarded-host"]}`)
    })
    const handler = makeProxyHandler({
      tld: "localhost",
      proto: "https",
      resolve: () => ({ _tag: "Target", port: target }),
    })
    closers.push(handler.close)
    const server = http2.createServer(handler.request)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    closers.push(() => {
      client.close()
      server.close()
    })
    const reply = await new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const stream = client.request({ ":path": "/", ":authority": "shop.localhost" })
        let body = ""
        let status = 0
        let headers: http2.IncomingHttpHeaders = {}
        stream.on("response", (h) => {
          headers = h
          status = Number(h[":status"])
        })
        stream.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        stream.on("end", () => resolve({ status, headers, body }))
        stream.on("error", reject)
      },
    )
    expect(reply.status).toBe(200)
    expect(reply.body).toBe("h2 shop.localhost shop.localhost")
    expect(reply.headers.connection).toBeUndefined()
    expect(reply.headers["keep-alive"]).toBeUndefined()
  })
})

describe("listening addresses", () => {
  it("reads the LISTEN rows of a port from /proc/net/tcp6 text", () => {
    const text = [
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1",
      "   1: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D431 01 00000000:00000000 00:00000000 00000000  1000        0 112 1",
    ].join("\n")
    expect(listeningAddresses(text, 8080)).toEqual(["00000000000000000000000001000000"])
    expect(listeningAddresses(text, 8081)).toEqual([])
  })

  it("a port that listens on IPv4 (or nowhere) is reached on 127.0.0.1", async () => {
    const target = await serve((_req, res) => res.end())
    expect(loopbackFor(target)).toBe("127.0.0.1")
  })
})

describe("failure pages", () => {
  it("are HTML by default, escaped, and plain text when Accept asks for it", () => {
    const f = failure(502, "Bad Gateway", ["<b>down</b>"], ["line 1"])
    const html = renderFailure(f, "text/html,*/*")
    expect(html.contentType).toMatch(/^text\/html/)
    expect(html.body).toContain("&lt;b&gt;down&lt;/b&gt;")
    expect(html.body).toContain("<pre>line 1</pre>")
    expect(renderFailure(f, undefined).contentType).toMatch(/^text\/html/)
    const text = renderFailure(f, "text/plain")
    expect(text.contentType).toMatch(/^text\/plain/)
    expect(text.body).toBe("502 Bad Gateway\n\n<b>down</b>\n\nLast log lines:\nline 1\n")
  })
})
