/**
 * The API's client errors, through a real supervisor on its Unix socket and its TCP listener:
 * every 4xx carries the JSON error body `{ _tag, message }`. The routes with a payload are read
 * from the API definition, so a new one is covered without touching this file.
 */
import { request } from "node:http"
import { join } from "node:path"
import { HttpApi, HttpMethod } from "@effect/platform"
import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../../src/api/Api.js"
import { type DaemonSandbox, makeDaemonSandbox } from "./harness.js"

const T = 30_000
let sb: DaemonSandbox
let dir: string
let tcp: { readonly base: string; readonly token: string }

interface Reply {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

/** One request over the Unix socket (`via: "socket"`) or the TCP listener, with a raw body. */
const send = (via: "socket" | "tcp", method: string, path: string, body?: string): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" }
    const target =
      via === "socket"
        ? { socketPath: join(sb.stateDir, "sock", "api.sock"), path, agent: false as const }
        : (() => {
            const url = new URL(path, tcp.base)
            headers["x-supervisor-token"] = tcp.token
            return { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}` }
          })()
    const req = request({ ...target, method, headers }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (d: string) => {
        text += d
      })
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body: text }),
      )
    })
    req.on("error", reject)
    req.end(body)
  })

/** A client error with the JSON error body; returns the body. */
const expectJsonError = (r: Reply, status: number, what: string) => {
  expect(r.status, `${what}: ${r.body}`).toBe(status)
  expect(r.contentType, what).toContain("application/json")
  const body = JSON.parse(r.body) as { _tag: unknown; message: unknown }
  expect(typeof body._tag, what).toBe("string")
  expect(typeof body.message, what).toBe("string")
  return body
}

/** Every route of the API that takes a JSON body: method, path (the `/api/cli` ones only on the socket). */
const routesWithPayload = () => {
  const routes: Array<{ readonly method: string; readonly path: string }> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      if (HttpMethod.hasBody(endpoint.method) && Option.isSome(endpoint.payloadSchema))
        routes.push({ method: endpoint.method, path: endpoint.path })
    },
  })
  return routes
}

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project("app", `[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0\n`)
  const started = sb.cli(["supervisor", "start", "--web-port", "0"], dir)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], dir).stdout) as { web_url: string }
  tcp = { base: status.web_url, token: sb.cli(["supervisor", "token"], dir).stdout.trim() }
  expect(sb.cli(["start", "web"], dir).status).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("API client errors (e2e)", () => {
  it(
    "a body that is not JSON, or JSON of the wrong shape, is a 400 with a JSON error body on every route with a payload",
    async () => {
      const routes = routesWithPayload()
      expect(routes.map((r) => r.path)).toEqual(
        expect.arrayContaining([
          "/api/namespaces",
          "/api/cli/start",
          "/api/cli/start-from",
          "/api/cli/logs/stream",
        ]),
      )
      for (const { method, path: declared } of routes) {
        // a daemon's route is sent for the running daemon (`input`); no other parameter is known here
        const path = declared.replace(":id", encodeURIComponent("app/web"))
        expect(path, "a route with a payload and a path parameter needs a sample here").not.toContain(":")
        for (const body of ["{not json", "", '"a string, not an object"', "42"]) {
          const what = `${method} ${path} ${JSON.stringify(body)}`
          expectJsonError(await send("socket", method, path, body), 400, what)
          if (!path.startsWith("/api/cli/"))
            expectJsonError(await send("tcp", method, path, body), 400, `TCP ${what}`)
        }
      }
      // nothing was started, stopped, cleaned or shut down by those requests
      const list = JSON.parse(sb.cli(["list", "--json"], dir).stdout) as Array<{ status: { type: string } }>
      expect(list.map((e) => e.status.type)).toEqual(["running"])
    },
    T,
  )

  it(
    "bad URL parameters are a 400 with a JSON error body",
    async () => {
      expectJsonError(await send("tcp", "GET", "/api/logs/app%2Fweb/tail?lines=many"), 400, "tail lines")
      expectJsonError(
        await send("tcp", "GET", "/api/logs/app%2Fweb/tail?since=yesterday-ish"),
        400,
        "tail since",
      )
      expectJsonError(
        await send("socket", "POST", "/api/cli/supervisor/stop?keep_daemons=maybe"),
        400,
        "shutdown",
      )
      expect(sb.cli(["supervisor", "status"], dir).status).toBe(0)
    },
    T,
  )

  it(
    "a daemon ID that is not <namespace>/<name> is a 400 BadDaemonId on every route of one daemon; an unknown one is not",
    async () => {
      const routes: Array<readonly [string, string]> = [
        ["GET", "/api/daemons/{id}"],
        ...["start", "stop", "restart", "enable", "disable"].map(
          (a) => ["POST", `/api/daemons/{id}/${a}`] as const,
        ),
        ["GET", "/api/logs/{id}/tail"],
        ["GET", "/api/processes/{id}/tree"],
      ]
      for (const [method, path] of routes)
        for (const id of ["web", "app%2Fweb%2Fx", "bad%20ns%2Fweb", "app%2F"])
          for (const via of ["socket", "tcp"] as const) {
            const what = `${via} ${method} ${path} ${id}`
            const body = expectJsonError(await send(via, method, path.replace("{id}", id)), 400, what)
            expect(body, what).toMatchObject({ _tag: "BadDaemonId", id: decodeURIComponent(id) })
          }
      const short = JSON.parse((await send("tcp", "GET", "/api/daemons/web")).body) as { message: string }
      expect(short.message).toContain("use the qualified form <namespace>/web")
      // well-formed but unknown: as before, 404 (or ok: false for the control routes)
      const unknown = expectJsonError(await send("tcp", "GET", "/api/daemons/app%2Fnope"), 404, "unknown")
      expect(unknown._tag).toBe("DaemonNotFound")
      const control = await send("tcp", "POST", "/api/daemons/app%2Fnope/start")
      expect(control.status).toBe(200)
      expect(JSON.parse(control.body)).toMatchObject({ ok: false })
      expect((await send("tcp", "GET", "/api/daemons/app%2Fweb")).status).toBe(200)
    },
    T,
  )

  it(
    "an unknown route, or a route asked with the wrong method, is a 404 with a JSON error body",
    async () => {
      for (const via of ["socket", "tcp"] as const) {
        expect(expectJsonError(await send(via, "GET", "/api/nope"), 404, `${via} /api/nope`)._tag).toBe(
          "NotFound",
        )
        expectJsonError(await send(via, "DELETE", "/api/daemons"), 404, `${via} DELETE /api/daemons`)
      }
      expectJsonError(await send("socket", "GET", "/api/cli/nope"), 404, "/api/cli/nope")
    },
    T,
  )
})
