import { describe, expect, it } from "vitest"
import {
  endToEnd,
  forwardHeaders,
  hopsOf,
  namesOfHost,
  requestHost,
  slugOfHost,
  upgradeRequestHead,
  worktreeOfHost,
} from "../../src/proxy/headers.js"

describe("proxy headers", () => {
  it("drops hop-by-hop headers, those named in Connection, and HTTP/2 pseudo-headers", () => {
    expect(
      endToEnd({
        connection: "keep-alive, X-Secret",
        "keep-alive": "timeout=5",
        "proxy-authorization": "Basic x",
        "proxy-connection": "keep-alive",
        te: "trailers",
        trailer: "x-sum",
        "transfer-encoding": "chunked",
        upgrade: "websocket",
        "x-secret": "1",
        ":authority": "shop.localhost",
        accept: "text/html",
        "set-cookie": ["a=1", "b=2"],
      }),
    ).toEqual({ accept: "text/html", "set-cookie": ["a=1", "b=2"] })
  })

  it("sets X-Forwarded-Host|Proto, appends to X-Forwarded-For, keeps Host and counts the hop", () => {
    const out = forwardHeaders(
      {
        host: "shop.localhost:7080",
        "x-forwarded-for": "10.0.0.1",
        "x-supervisor-hops": "2",
        connection: "close",
      },
      { remoteAddress: "::ffff:127.0.0.1", host: "shop.localhost:7080", proto: "https", hops: 2 },
    )
    expect(out).toEqual({
      host: "shop.localhost:7080",
      "x-forwarded-for": "10.0.0.1, 127.0.0.1",
      "x-forwarded-host": "shop.localhost:7080",
      "x-forwarded-proto": "https",
      "x-supervisor-hops": "3",
    })
    expect(
      forwardHeaders({}, { remoteAddress: "127.0.0.1", host: "a.localhost", proto: "http", hops: 0 })[
        "x-forwarded-for"
      ],
    ).toBe("127.0.0.1")
  })

  it("reads the hop count; a bad value counts as none", () => {
    expect(hopsOf({ "x-supervisor-hops": "5" })).toBe(5)
    expect(hopsOf({ "x-supervisor-hops": "x" })).toBe(0)
    expect(hopsOf({})).toBe(0)
  })

  it("routes by the label before the TLD, with or without a port; other hosts are none", () => {
    expect(slugOfHost("shop.localhost", "localhost")).toBe("shop")
    expect(slugOfHost("Shop.LocalHost:7443", "localhost")).toBe("shop")
    expect(slugOfHost("api.shop.localhost", "localhost")).toBe("shop")
    expect(slugOfHost("shop.test.", "test")).toBe("shop")
    expect(slugOfHost("localhost:7080", "localhost")).toBeUndefined()
    expect(slugOfHost("127.0.0.1:7080", "localhost")).toBeUndefined()
    expect(slugOfHost("[::1]:7080", "localhost")).toBeUndefined()
    expect(slugOfHost("shop.example.com", "localhost")).toBeUndefined()
  })

  it("the label before the slug is the worktree a request may be for", () => {
    expect(worktreeOfHost("feature-x.shop.localhost:7080", "localhost")).toBe("feature-x")
    expect(worktreeOfHost("A.B.Shop.LocalHost", "localhost")).toBe("b")
    expect(worktreeOfHost("shop.localhost", "localhost")).toBeUndefined()
    expect(worktreeOfHost("x.shop.example.com", "localhost")).toBeUndefined()
    expect(worktreeOfHost("[::1]:7080", "localhost")).toBeUndefined()
  })

  it("reads the slug and the worktree of a host at once, as each alone reads them", () => {
    for (const host of [
      "shop.localhost",
      "Shop.LocalHost:7443",
      "feature-x.shop.localhost:7080",
      "A.B.Shop.LocalHost",
      "shop.test.",
      "..localhost",
      ".shop.localhost",
      "localhost:7080",
      "[::1]:7080",
      "x.shop.example.com",
    ])
      for (const tld of ["localhost", "test"])
        expect(namesOfHost(host, tld)).toEqual({
          slug: slugOfHost(host, tld),
          worktree: worktreeOfHost(host, tld),
        })
  })

  it("takes the host from Host, or :authority over HTTP/2", () => {
    expect(requestHost({ host: "a.localhost" }, 1)).toBe("a.localhost")
    expect(requestHost({ ":authority": "b.localhost" }, 2)).toBe("b.localhost")
    expect(requestHost({}, 1)).toBeUndefined()
    expect(requestHost({ host: " " }, 1)).toBeUndefined()
  })

  it("writes an upgrade request's head with the Connection and Upgrade headers, no CR/LF injection", () => {
    expect(
      upgradeRequestHead("GET", "/ws", { host: "a.localhost", "x-a": ["1", "2\r\nx: y"] }, "websocket"),
    ).toBe(
      "GET /ws HTTP/1.1\r\nhost: a.localhost\r\nx-a: 1\r\nx-a: 2x: y\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\r\n",
    )
  })
})
