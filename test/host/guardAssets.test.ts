/**
 * The web listener serves the terminal pane's xterm.js and style sheet itself (no CDN), under the
 * base path, without a login (a library, no secret), and its page's Content-Security-Policy lets
 * the page load them and open its WebSocket, from its own origin only.
 */
import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { guarded } from "../../src/host/guard.js"
import { makeSessions } from "../../src/host/sessions.js"
import { allowedHosts } from "../../src/host/tcp.js"

const PORT = 3120

const handlerOf = (ui: boolean, basePath: string) => {
  const handler = HttpApp.toWebHandler(
    guarded(Effect.succeed(HttpServerResponse.text("the api")), {
      token: "f".repeat(64),
      allowedHosts: () => allowedHosts("127.0.0.1", PORT),
      sessions: makeSessions(() => 0),
      ui,
      page: () => "<!doctype html><p>the page</p>",
      openApi: () => ({}),
      basePath,
    })(),
  )
  return async (path: string) => {
    const res = await handler(
      new Request(`http://127.0.0.1:${PORT}${path}`, { headers: { host: `127.0.0.1:${PORT}` } }),
    )
    return { status: res.status, headers: res.headers, text: await res.text() }
  }
}

describe("the terminal pane's assets", () => {
  it("serves xterm.js and xterm.css under the base path, without a session, cacheable, without a source map comment", async () => {
    const get = handlerOf(true, "/bp")
    const js = await get("/bp/assets/xterm.js")
    expect(js.status).toBe(200)
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(js.headers.get("cache-control")).toBe("public, max-age=86400")
    expect(js.headers.get("x-content-type-options")).toBe("nosniff")
    expect(js.text).toContain("e.Terminal=")
    expect(js.text).not.toContain("sourceMappingURL")
    const css = await get("/bp/assets/xterm.css")
    expect(css.status).toBe(200)
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
    expect(css.text).toContain(".xterm-screen")
    // nothing else is served from there, and nothing outside the base path
    expect((await get("/bp/assets/other.js")).status).toBe(404)
    expect((await get("/assets/xterm.js")).status).toBe(404)
  })

  it("the API-only listener serves no page and no assets", async () => {
    const get = handlerOf(false, "")
    expect((await get("/assets/xterm.js")).status).toBe(404)
    expect((await get("/assets/xterm.css")).status).toBe(404)
  })

  it("the page's policy allows scripts, styles and connections of its own origin and inline ones, nothing else", async () => {
    const page = await handlerOf(true, "")("/")
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'",
    )
  })
})
