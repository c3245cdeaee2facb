/**
 * The TCP guard on GET /metrics: the token like the API; `metricsPublic` lets a loopback client
 * through without it, and only a loopback one (a request whose peer is unknown still needs it).
 */
import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { guarded } from "../../src/host/guard.js"
import { makeSessions } from "../../src/host/sessions.js"
import { allowedHosts } from "../../src/host/tcp.js"

const TOKEN = "e".repeat(64)
const PORT = 3120

const handler = (metricsPublic: boolean) =>
  HttpApp.toWebHandler(
    guarded(Effect.succeed(HttpServerResponse.text("served")), {
      token: TOKEN,
      allowedHosts: () => allowedHosts("127.0.0.1", PORT),
      sessions: makeSessions(),
      ui: true,
      page: () => "<p>page</p>",
      openApi: () => ({}),
      basePath: "",
      metricsPublic,
    })(),
  )

const call = async (metricsPublic: boolean, path: string, token?: string, method = "GET") => {
  const res = await handler(metricsPublic)(
    new Request(`http://127.0.0.1:${PORT}${path}`, {
      method,
      headers: { host: `127.0.0.1:${PORT}`, ...(token === undefined ? {} : { "x-supervisor-token": token }) },
    }),
  )
  return { status: res.status, text: await res.text() }
}

describe("guard: GET /metrics", () => {
  it("needs the token like the API, and passes to the app with it", async () => {
    expect((await call(false, "/metrics")).status).toBe(401)
    expect((await call(false, "/metrics", "0".repeat(64))).status).toBe(401)
    expect(await call(false, "/metrics", TOKEN)).toEqual({ status: 200, text: "served" })
  })

  it("metricsPublic does not open it to a peer that is not known to be on loopback", async () => {
    // a web handler's request has no remote address
    expect((await call(true, "/metrics")).status).toBe(401)
    expect((await call(true, "/metrics", TOKEN)).status).toBe(200)
  })

  it("only GET /metrics is a route outside /api/", async () => {
    expect((await call(false, "/metrics", TOKEN, "POST")).status).toBe(404)
    expect((await call(false, "/metricsx", TOKEN)).status).toBe(404)
  })
})
