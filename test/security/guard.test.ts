/**
 * The guard of the TCP listeners, driven as a web handler with a clock of its own: the Host
 * check against DNS rebinding, the session cookie's attributes and lifetime, the one-time login
 * code (once, and 2 minutes), logout ending the session, and no token in what it answers.
 */
import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { guarded } from "../../src/host/guard.js"
import { CODE_TTL_MS, makeSessions, SESSION_TTL_MS } from "../../src/host/sessions.js"
import { allowedHosts } from "../../src/host/tcp.js"

const TOKEN = "f".repeat(64)
const PORT = 3120

const setup = () => {
  let t = 1_000_000
  const sessions = makeSessions(() => t)
  const handler = HttpApp.toWebHandler(
    guarded(Effect.succeed(HttpServerResponse.text("the api")), {
      token: TOKEN,
      allowedHosts: () => allowedHosts("127.0.0.1", PORT),
      sessions,
      ui: true,
      page: () => "<!doctype html><p>the page</p>",
      openApi: () => ({ openapi: "3.1.0" }),
      basePath: "",
    })(),
  )
  const call = async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) => {
    const res = await handler(
      new Request(`http://127.0.0.1:${PORT}${path}`, {
        method: init.method ?? "GET",
        headers: { host: `127.0.0.1:${PORT}`, ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
      }),
    )
    const text = await res.text()
    // nothing the guard answers ever holds the token
    expect(text).not.toContain(TOKEN)
    expect(JSON.stringify([...res.headers])).not.toContain(TOKEN)
    return { status: res.status, text, headers: res.headers }
  }
  return { call, sessions, advance: (ms: number) => (t += ms) }
}

const cookieOf = (headers: Headers) => headers.get("set-cookie") ?? ""
const sessionId = (headers: Headers) => /supervisor_session=([^;]*)/.exec(cookieOf(headers))?.[1] ?? ""

describe("Host check (DNS rebinding)", () => {
  it("refuses every Host that is not an address of the listener, with a 403 JSON error", async () => {
    const { call } = setup()
    const hostile = [
      "evil.com",
      `evil.com:${PORT}`,
      `127.0.0.1.evil.com:${PORT}`,
      `localhost.evil.com:${PORT}`,
      `127.0.0.1:${PORT}.evil.com`,
      `evil.com:${PORT}@127.0.0.1:${PORT}`,
      `127.0.0.1:${PORT + 1}`,
      "127.0.0.1",
      `0.0.0.0:${PORT}`,
      `[::ffff:127.0.0.1]:${PORT}`,
      "",
    ]
    for (const host of hostile) {
      const r = await call("/api/daemons", { headers: { host, "x-supervisor-token": TOKEN } })
      expect(r.status, host).toBe(403)
      expect(JSON.parse(r.text), host).toMatchObject({ _tag: "HostNotAllowed" })
      // the page itself is refused too: a rebinding page cannot read it
      expect((await call("/", { headers: { host } })).status, host).toBe(403)
    }
    for (const host of [`127.0.0.1:${PORT}`, `localhost:${PORT}`, `LOCALHOST:${PORT}`, `[::1]:${PORT}`])
      expect(
        (await call("/api/daemons", { headers: { host, "x-supervisor-token": TOKEN } })).status,
        host,
      ).toBe(200)
  })
})

describe("web sessions", () => {
  it("the one-time login code works once, and not after 2 minutes", async () => {
    const { call, sessions, advance } = setup()
    const code = sessions.newCode()
    const first = await call(`/login?code=${code}`)
    expect(first.status).toBe(303)
    expect(sessionId(first.headers)).not.toBe("")
    const again = await call(`/login?code=${code}`)
    expect(again.status).toBe(401)
    expect(cookieOf(again.headers)).toBe("")
    const late = sessions.newCode()
    advance(CODE_TTL_MS + 1)
    expect((await call(`/login?code=${late}`)).status).toBe(401)
    expect((await call("/login?code=")).status).toBe(401)
  })

  it("the session cookie is HttpOnly, SameSite=Strict, with a Max-Age; the session ends with it", async () => {
    const { call, sessions, advance } = setup()
    const r = await call(`/login?code=${sessions.newCode()}`)
    const cookie = cookieOf(r.headers)
    expect(cookie).toMatch(/; HttpOnly/)
    expect(cookie).toMatch(/; SameSite=Strict/)
    expect(cookie).toContain(`; Max-Age=${SESSION_TTL_MS / 1000}`)
    expect(cookie).toContain("; Path=/")
    const id = sessionId(r.headers)
    const withCookie = { headers: { cookie: `supervisor_session=${id}` } }
    expect((await call("/api/daemons", withCookie)).status).toBe(200)
    advance(SESSION_TTL_MS - 1000)
    expect((await call("/api/daemons", withCookie)).status).toBe(200)
    advance(1001)
    expect((await call("/api/daemons", withCookie)).status).toBe(401)
  })

  it("a pasted token makes a session; a wrong one is 401 without echoing anything; logout ends it", async () => {
    const { call } = setup()
    const wrong = await call("/login", { method: "POST", body: JSON.stringify({ token: `${TOKEN}0` }) })
    expect(wrong.status).toBe(401)
    expect(wrong.text).not.toContain(`${TOKEN}0`)
    const ok = await call("/login", { method: "POST", body: JSON.stringify({ token: TOKEN }) })
    expect(ok.status).toBe(200)
    const id = sessionId(ok.headers)
    const withCookie = { headers: { cookie: `supervisor_session=${id}` } }
    expect((await call("/api/daemons", withCookie)).status).toBe(200)
    const out = await call("/logout", { method: "POST", ...withCookie })
    expect(cookieOf(out.headers)).toContain("Max-Age=0")
    // a copy of the cookie kept after logout is worthless
    expect((await call("/api/daemons", withCookie)).status).toBe(401)
  })

  it("the page, the login page and every error answer without the token", async () => {
    const { call } = setup()
    expect((await call("/")).status).toBe(200)
    expect((await call("/login?code=nope")).status).toBe(401)
    expect((await call("/api/daemons", { headers: { "x-supervisor-token": "x" } })).status).toBe(401)
    expect((await call("/api/openapi.json")).status).toBe(401)
    const doc = await call("/api/openapi.json", { headers: { "x-supervisor-token": TOKEN } })
    expect(doc.status).toBe(200)
    expect((await call("/nope")).status).toBe(404)
  })
})
