/**
 * Hostile input against a real supervisor (started once for this file): every route of the API
 * with fuzzed path parameters, queries, headers and bodies, over the Unix socket and the token-
 * guarded TCP listener; and `logs`, `spec check` and broken configurations through the built CLI.
 * Never a 5xx, a stack trace or a crash: a 4xx carries the JSON error body, the CLI exits 1 with
 * a message. No file appears or changes outside the state and config directories.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs"
import { request } from "node:http"
import * as net from "node:net"
import { join, resolve } from "node:path"
import { HttpApi, HttpMethod } from "@effect/platform"
import { JSONSchema, Option, type Schema } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../../src/api/Api.js"
import { type DaemonSandbox, makeDaemonSandbox, runCli, STACK_LINE, supervisorPids } from "../e2e/harness.js"
import { hostileString, params, runs, TIMEOUT, tried } from "./fuzz.js"

const T = Math.max(TIMEOUT, 120_000)
const REPO = resolve(__dirname, "../..")
let sb: DaemonSandbox
let dir: string
let tcp: { readonly host: string; readonly port: number; readonly token: string }
let supervisorPid: number

interface Reply {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

interface Req {
  readonly via: "socket" | "tcp"
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string | Buffer
  /** The TCP listener's token header: the right one unless told otherwise. */
  readonly token?: string | null
}

/**
 * One request. A success is resolved as soon as its headers arrive (a followed log stream never
 * ends); an error is read to its end.
 */
const send = (r: Req): Promise<Reply> =>
  new Promise((resolvePromise, reject) => {
    const headers: Record<string, string> = { ...r.headers }
    // Node sends a GET or DELETE body without a length: its bytes would read as a second request
    // (test "requests that are not HTTP" sends those on purpose)
    if (r.body !== undefined) headers["content-length"] = String(Buffer.byteLength(r.body))
    if (r.via === "tcp" && r.token !== null) headers["x-supervisor-token"] = r.token ?? tcp.token
    const target =
      r.via === "socket"
        ? { socketPath: join(sb.stateDir, "sock", "api.sock") }
        : { host: tcp.host, port: tcp.port }
    const req = request({ ...target, path: r.path, method: r.method, headers, agent: false }, (res) => {
      const status = res.statusCode ?? 0
      const contentType = res.headers["content-type"]
      if (status < 400) {
        res.destroy()
        req.destroy()
        return resolvePromise({ status, contentType, body: "" })
      }
      let text = ""
      res.setEncoding("utf8").on("data", (d: string) => {
        text += d
      })
      res.on("end", () => resolvePromise({ status, contentType, body: text }))
    })
    req.on("error", reject)
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer to ${r.method} ${r.path} within 15 s`)))
    req.end(r.body)
  })

/** Never a 5xx; a 4xx has the JSON error body; nothing shows a stack trace. */
const checkReply = (reply: Reply, what: string) => {
  expect(reply.status, `${what}: ${reply.body.slice(0, 500)}`).toBeLessThan(500)
  expect(reply.body, what).not.toMatch(STACK_LINE)
  if (reply.status >= 400) {
    expect(reply.contentType, what).toContain("application/json")
    const body = JSON.parse(reply.body) as { _tag: unknown; message: unknown }
    expect(typeof body._tag, `${what}: ${reply.body.slice(0, 500)}`).toBe("string")
    expect(typeof body.message, what).toBe("string")
  }
}

interface Route {
  readonly method: string
  readonly path: string
  /** The top-level keys of its JSON payload (none: no payload). */
  readonly keys: ReadonlyArray<string>
  readonly socketOnly: boolean
}

/** Every route of the API, read from its definition; the supervisor's shutdown is left out. */
const ROUTES: ReadonlyArray<Route> = (() => {
  const routes: Array<Route> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      if (endpoint.path === "/api/cli/supervisor/stop") return
      const payload = Option.getOrUndefined(endpoint.payloadSchema) as Schema.Schema.Any | undefined
      const json = payload && HttpMethod.hasBody(endpoint.method) ? JSONSchema.make(payload) : undefined
      const keys = json && "properties" in json ? Object.keys(json.properties as object) : []
      routes.push({
        method: endpoint.method,
        path: endpoint.path,
        keys: json ? (keys.length > 0 ? keys : ["_"]) : [],
        socketOnly: endpoint.path.startsWith("/api/cli/"),
      })
    },
  })
  return routes
})()

/** A path segment as a client may send it: encoded, half-encoded (`/`, `..`, `%` raw), or bare. */
const segment: fc.Arbitrary<string> = fc
  .tuple(hostileString, fc.constantFrom("encoded", "half", "raw"))
  .map(([s, how]) =>
    how === "encoded"
      ? encodeURIComponent(s)
      : // Node's client refuses a path with spaces, controls or non-Latin-1: those are always encoded
        s.replace(/[^\u0021-\u007e]/gu, (c) => (how === "half" ? encodeURIComponent(c) : "%00")),
  )

/** A JSON value of any type, hostile strings and huge arrays included. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.array(hostileString, { maxLength: 3 }),
  // small: a route that answers without reading a body of hundreds of KB closes the
  // connection under the client (EPIPE); the huge bodies have their own test below
  fc.constantFrom(
    Array.from({ length: 2000 }, (_, i) => i),
    -1,
    2 ** 64,
    1e308,
    "",
    null,
  ),
)

const body = (keys: ReadonlyArray<string>): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    fc.constantFrom("{not json", "", "[", '{"a":', "null", "42", '"x"', "\u0000", "{}".repeat(1000)),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
    anyJson.map((v) => JSON.stringify(v) ?? "null"),
    fc
      .dictionary(fc.constantFrom(...keys, "__proto__", "constructor", "extra"), anyJson, { maxKeys: 6 })
      .map((o) => JSON.stringify(o)),
  )

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "",
  "*/*",
]
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
})
const extraHeaders = fc.dictionary(
  fc.constantFrom(
    "accept",
    "x-forwarded-for",
    "origin",
    "cookie",
    "x-fuzz",
    "accept-encoding",
    "range",
    "expect-ct",
  ),
  headerValue,
  { maxKeys: 3 },
)

/** A request of one route: its path parameters and query fuzzed, a body where it takes one. */
const requestOf = (route: Route): fc.Arbitrary<Req> =>
  fc
    .record({
      via: route.socketOnly
        ? fc.constant("socket" as const)
        : fc.constantFrom("socket" as const, "tcp" as const),
      param: segment,
      query: fc.option(
        fc.dictionary(
          fc.constantFrom("lines", "since", "grep", "keep_daemons", "x", "lines[]"),
          hostileString,
          {
            maxKeys: 3,
          },
        ),
        { nil: undefined },
      ),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      headers: extraHeaders,
      body: route.keys.length > 0 ? body(route.keys) : fc.option(body(["_"]), { nil: undefined, freq: 4 }),
      token: fc.option(fc.constantFrom<string | null>(null, "", "wrong", "x".repeat(300)), {
        nil: undefined,
        freq: 5,
      }),
    })
    .map(({ via, param, query, contentType, headers, body, token }) => {
      const qs =
        query === undefined
          ? ""
          : `?${Object.entries(query)
              .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
              .join("&")}`
      return {
        via,
        method: route.method,
        path: `${route.path.replace(/:\w+/g, param)}${qs}`,
        headers: { ...headers, ...(contentType === "" ? {} : { "content-type": contentType }) },
        ...(body === undefined ? {} : { body }),
        ...(token === undefined ? {} : { token }),
      }
    })

// -- the tree outside the state and config directories, before and after ----------------------

/** Every file and directory under `root` (with size and mtime) except those below `skip`. */
const snapshot = (root: string, skip: ReadonlyArray<string>): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (skip.some((s) => p === s || p.startsWith(`${s}/`))) continue
      const st = lstatSync(p)
      out.set(p, st.isDirectory() ? "dir" : `${st.size} ${st.mtimeMs}`)
      if (st.isDirectory()) walk(p)
    }
  }
  walk(root)
  return out
}

/** Where the fuzzed paths (`../../x`, `/etc/passwd`, ...) would land if one escaped. */
const probes = (): Array<string> => {
  const bases = [
    sb.root,
    sb.stateDir,
    join(sb.stateDir, "logs"),
    join(sb.stateDir, "sock"),
    dir,
    REPO,
    "/tmp",
  ]
  const names = ["x", "evil", "sv-fuzz-pwned", "passwd"]
  return bases.flatMap((b) =>
    ["", "..", "../..", "../../.."].flatMap((up) => names.map((n) => resolve(b, up, n))),
  )
}

let before: Map<string, string>
let probedBefore: Array<string>
const configDirs = () => [
  sb.stateDir,
  join(sb.home, ".config", "supervisor"),
  join(sb.root, "etc", "supervisor"),
]

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project("app", `[daemons.web]\nrun = "exec sleep 300"\nready_delay = 0\n`)
  const started = sb.cli(["supervisor", "start", "--web-port", "0"], dir)
  expect(started.status, started.stderr).toBe(0)
  const status = JSON.parse(sb.cli(["supervisor", "status", "--json"], dir).stdout) as { web_url: string }
  const url = new URL(status.web_url)
  tcp = {
    host: url.hostname,
    port: Number(url.port),
    token: sb.cli(["supervisor", "token"], dir).stdout.trim(),
  }
  expect(sb.cli(["start", "web"], dir).status).toBe(0)
  ;[supervisorPid] = supervisorPids(sb.stateDir) as [number]
  before = snapshot(sb.root, configDirs())
  probedBefore = probes().filter((p) => existsSync(p))
}, T)
afterAll(() => sb?.destroy())

/** The supervisor still runs (the same process), answers, and its daemon is untouched. */
const stillServing = async () => {
  expect(supervisorPids(sb.stateDir)).toEqual([supervisorPid])
  const list = await send({ via: "socket", method: "GET", path: "/api/daemons" })
  expect(list.status).toBe(200)
  const entry = await send({ via: "tcp", method: "GET", path: "/api/daemons/app%2Fweb" })
  expect(entry.status).toBe(200)
}

describe("API under hostile requests (fuzz, e2e)", () => {
  it(
    "every route answers fuzzed parameters, headers and bodies with a 2xx or a 4xx JSON error",
    async () => {
      expect(ROUTES.length).toBeGreaterThan(30)
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...ROUTES).chain((route) => requestOf(route)),
          async (req) => {
            tried("HTTP requests")
            const what = `${req.via} ${req.method} ${req.path.slice(0, 200)} ${String(req.body ?? "").slice(0, 200)}`
            checkReply(await send(req), what)
          },
        ),
        params(120),
      )
      await stillServing()
    },
    T,
  )

  it(
    "every daemon ID in a path, however hostile, is a 400 or 404 with the JSON error body",
    async () => {
      const idRoutes = ROUTES.filter((r) => /:(id|namespace)/.test(r.path) && r.path.includes(":id"))
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...idRoutes),
          segment,
          fc.constantFrom("socket" as const, "tcp" as const),
          async (route, id, via) => {
            tried("daemon IDs in paths")
            const reply = await send({ via, method: route.method, path: route.path.replace(":id", id) })
            checkReply(reply, `${via} ${route.method} ${route.path} ${id.slice(0, 200)}`)
            // a control route answers ok: false for an unknown daemon; no route finds one
            if (reply.status >= 400) expect([400, 404]).toContain(reply.status)
          },
        ),
        params(80),
      )
      await stillServing()
    },
    T,
  )

  it(
    "huge and deeply nested bodies are a 400 with the JSON error body on every route with a payload",
    async () => {
      const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
      const withPayload = ROUTES.filter((r) => r.keys.length > 0)
      for (const [i, route] of withPayload.entries()) {
        const key = route.keys[0]!
        const texts = [deep(100_000), `{"${key}":${deep(5000)}}`]
        // an 8 MB body costs a second: on one route in the bounded run, on all in the long one
        if (i === 0 || runs(0) > 0) texts.push(`{"${key}":"${"x".repeat(8_000_000)}"}`)
        for (const text of texts) {
          tried("huge or deep bodies")
          const reply = await send({
            via: "socket",
            method: route.method,
            path: route.path,
            headers: { "content-type": "application/json" },
            body: text,
          })
          checkReply(reply, `${route.method} ${route.path} (${text.length} bytes)`)
          // a long string may be a well-formed value (an unknown ID); nesting never is
          if (text.startsWith("[") || text.includes("[["))
            expect(reply.status, `${route.method} ${route.path}`).toBe(400)
        }
      }
      await stillServing()
    },
    T,
  )

  it(
    "no file appeared or changed outside the state and config directories",
    () => {
      const after = snapshot(sb.root, configDirs())
      expect([...after.keys()].filter((p) => !before.has(p))).toEqual([])
      expect(
        [...before].filter(([p, v]) => after.get(p) !== v && !p.startsWith(`${dir}/`)).map(([p]) => p),
      ).toEqual([])
      expect(probes().filter((p) => existsSync(p))).toEqual(probedBefore)
    },
    T,
  )
})

/** Raw bytes to the Unix socket or the TCP listener; everything answered until the connection closes. */
const rawBytes = (via: "socket" | "tcp", bytes: string): Promise<string> =>
  new Promise((resolvePromise, reject) => {
    const socket =
      via === "socket" ? net.connect(join(sb.stateDir, "sock", "api.sock")) : net.connect(tcp.port, tcp.host)
    socket.on("connect", () => socket.end(bytes))
    let text = ""
    socket.setEncoding("utf8").on("data", (d: string) => {
      text += d
    })
    socket.on("close", () => resolvePromise(text))
    socket.on("error", reject)
    socket.setTimeout(15_000, () => socket.destroy(new Error("no answer within 15 s")))
  })

describe("requests that are not HTTP (e2e)", () => {
  it(
    "garbage bytes, headers over 16 KB and a body without a length are a 4xx with the JSON error body",
    async () => {
      const head = `Host: 127.0.0.1\r\nX-Supervisor-Token: ${"TOKEN"}`
      const cases = [
        "GARBAGE\r\n\r\n",
        `GET /api/daemons HTTP/1.1\r\n${head}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
        `GET /api/daemons/${"a".repeat(20_000)} HTTP/1.1\r\n${head}\r\n\r\n`,
        // a DELETE body without Content-Length: its bytes are read as the next request
        `DELETE /api/namespaces/x HTTP/1.1\r\n${head}\r\nConnection: keep-alive\r\n\r\n\u0000junk\r\n\r\n`,
        `POST /api/cli/logs HTTP/1.1\r\n${head}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      ]
      for (const via of ["socket", "tcp"] as const)
        for (const bytes of cases) {
          tried("requests that are not HTTP")
          const answer = await rawBytes(via, bytes.replace("TOKEN", tcp.token))
          const what = `${via} ${JSON.stringify(bytes.slice(0, 80))}: ${answer.slice(0, 300)}`
          // the last answer on the connection is the refusal (a first request may have been served)
          const last = answer.slice(answer.lastIndexOf("HTTP/1.1 "))
          const [status = 0] = /^HTTP\/1\.1 (\d+)/.exec(last)?.slice(1).map(Number) ?? []
          expect(status, what).toBeGreaterThanOrEqual(400)
          expect(status, what).toBeLessThan(500)
          expect(last.toLowerCase(), what).toContain("content-type: application/json")
          const body = JSON.parse(last.slice(last.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>
          expect(typeof body._tag, what).toBe("string")
          expect(typeof body.message, what).toBe("string")
        }
      await stillServing()
    },
    T,
  )

  it(
    "a multipart or binary body is a 415, answered at once and stored nowhere",
    async () => {
      const parts = [
        "",
        '--x\r\ncontent-disposition: form-data; name="id"; filename="../../x"\r\n\r\nhello\r\n--x--\r\n',
      ]
      for (const route of ROUTES.filter((r) => r.keys.length > 0))
        for (const [ctype, body] of [
          ...parts.map((p) => ["multipart/form-data; boundary=x", p] as const),
          ["application/octet-stream", "{}"] as const,
          ["*/*", '{"ids":[]}'] as const,
        ]) {
          tried("multipart bodies")
          const reply = await send({
            via: "socket",
            method: route.method,
            path: route.path,
            headers: { "content-type": ctype },
            body,
          })
          checkReply(reply, `${route.method} ${route.path} multipart`)
          expect(reply.status, `${route.method} ${route.path}`).toBe(415)
        }
      await stillServing()
    },
    T,
  )
})

describe("CLI under hostile values (fuzz, e2e)", () => {
  const cliCheck = (args: ReadonlyArray<string>, cwd: string, input?: string) => {
    tried("CLI runs")
    const r = runCli(args, { cwd, env: sb.env, ...(input === undefined ? {} : { input }) })
    const what = `supervisor ${args.map((a) => JSON.stringify(a.slice(0, 100))).join(" ")}`
    // 0, 1 (an error), or 2 (a usage error: a bad flag value)
    expect([0, 1, 2], `${what}: ${r.stderr}`).toContain(r.status)
    expect(r.stderr, what).not.toMatch(STACK_LINE)
    expect(r.stdout, what).not.toMatch(STACK_LINE)
    if (r.status !== 0) expect(r.stderr.trim().length, what).toBeGreaterThan(0)
    return r
  }

  it(
    "logs --since/--until/--grep/--regex: output, or exit 1 with a message",
    () => {
      const flagValue = fc.oneof(
        hostileString,
        fc.constantFrom(
          "5min",
          "2h ago",
          "2026-01-31 12:00:00",
          "((",
          "[a-",
          "*",
          "\\",
          `${"9".repeat(400)}y`,
        ),
      )
      fc.assert(
        fc.property(fc.constantFrom("--since", "--until", "--grep", "--regex"), flagValue, (flag, value) => {
          // NUL cannot be passed in an argument vector
          cliCheck(["logs", "app/web", `${flag}=${value.replaceAll("\u0000", "")}`], dir)
        }),
        // a CLI run costs ~0.4 s: 100 of them in the long run
        params(2, 100),
      )
      const huge = cliCheck(["logs", "app/web", "--since", `${"9".repeat(400)}y`], dir)
      expect(huge.status).not.toBe(0)
      expect(huge.stderr).toContain("too large")
    },
    T,
  )

  it(
    "spec check of hostile KDL, and commands in a project with a broken configuration: exit 1 with a message",
    () => {
      const deep = cliCheck(["spec", "check", "-"], dir, `${"cmd a {\n".repeat(5000)}${"}\n".repeat(5000)}`)
      expect(deep.status).toBe(1)
      expect(deep.stderr).toContain("nested more than 100 deep")
      const broken = sb.dir("broken")
      for (const text of [
        `[daemons.a]\nrun = ${"[".repeat(50_000)}`,
        `[daemons.a]\nrun = "sleep 1"\nready_delay = "${"9".repeat(400)}y"\n`,
      ]) {
        sb.write({ "broken/supervisor.toml": text })
        expect(cliCheck(["list"], broken).status).toBe(1)
      }
    },
    T,
  )
})
