// What a relayed connection carries in the property tests of the relay's `step`: a client's
// requests (pipelined, with length, chunked or no bodies, hop-by-hop headers, upgrades and
// HTTP/1.0 that go to Node's server, a head too long to read), the daemon's answer to each, and
// the bytes each side must see (docs/proxy.md: the documented head rewrites, nothing else).
import fc from "fast-check"

export const REMOTE = "9.9.9.9"
/** Small limits, so that the bound is reached by a few requests. */
export const MAX_HEAD = 400
export const MAX_RESPONSE_HEAD = 300
/** A write queue longer than this makes the socket's write return false. */
export const HIGH_WATER = 64
/** The longest read of either side. */
export const MAX_READ = 24

/** The port of each slug's daemon; `slow` never answers, `nope` is not routed. */
export const PORTS: Readonly<Record<string, number>> = { a: 1, b: 2, slow: 3 }

export interface ResponseSpec {
  readonly interim: boolean
  readonly status: 200 | 204 | 304 | 404
  readonly framing: "length" | "chunked" | "close"
  readonly hop: boolean
  readonly body: string
}

export interface RequestSpec {
  readonly method: "GET" | "HEAD" | "DELETE" | "POST" | "PUT"
  readonly slug: "a" | "b" | "slow" | "nope"
  readonly body:
    | { readonly framing: "length" | "chunked"; readonly chunks: ReadonlyArray<string> }
    | undefined
  readonly hop: boolean
  readonly forwardedFor: boolean
  /** A request for Node's server: an upgrade or HTTP/1.0. */
  readonly other: "upgrade" | "http10" | undefined
  readonly response: ResponseSpec
}

export interface Scenario {
  readonly requests: ReadonlyArray<RequestSpec>
  /** The client's bytes end with a line longer than a head may be. */
  readonly longHead: boolean
}

const text = fc.string({ unit: fc.constantFrom(..."abcxyz0189 "), maxLength: 30 })

const response: fc.Arbitrary<ResponseSpec> = fc.record({
  interim: fc.boolean(),
  status: fc.constantFrom(200, 200, 200, 204, 304, 404),
  framing: fc.constantFrom("length", "length", "length", "chunked", "chunked", "close"),
  hop: fc.boolean(),
  body: text,
})

const request: fc.Arbitrary<RequestSpec> = fc.record({
  method: fc.constantFrom("GET", "GET", "HEAD", "DELETE", "POST", "PUT"),
  slug: fc.constantFrom("a", "a", "a", "a", "a", "b", "b", "slow", "nope"),
  body: fc.option(
    fc.record({ framing: fc.constantFrom("length", "chunked"), chunks: fc.array(text, { maxLength: 3 }) }),
    { freq: 2, nil: undefined },
  ),
  hop: fc.boolean(),
  forwardedFor: fc.boolean(),
  // one request in ten is for Node's server
  other: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 9 },
    { arbitrary: fc.constantFrom("upgrade" as const, "http10" as const), weight: 1 },
  ),
  response,
})

export const scenario: fc.Arbitrary<Scenario> = fc.record({
  requests: fc.array(request, { minLength: 1, maxLength: 6 }),
  longHead: fc.oneof(
    { arbitrary: fc.constant(false), weight: 4 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
})

/**
 * How the run goes: the sizes of the client's and the daemon's reads, which event comes next,
 * and how often closes, errors and timers come (none with 0).
 */
export interface Schedule {
  readonly reads: ReadonlyArray<number>
  readonly choices: ReadonlyArray<number>
  readonly chaos: number
}

export const schedule: fc.Arbitrary<Schedule> = fc.record({
  reads: fc.array(fc.integer({ min: 1, max: MAX_READ }), { minLength: 1, maxLength: 12 }),
  choices: fc.array(fc.nat(), { minLength: 20, maxLength: 300 }),
  chaos: fc.constantFrom(0, 1, 5),
})

const host = (r: RequestSpec) => `${r.slug}.localhost`

const chunkedBody = (chunks: ReadonlyArray<string>) =>
  `${chunks
    .filter((c) => c.length > 0)
    .map((c) => `${c.length.toString(16)}\r\n${c}\r\n`)
    .join("")}0\r\n\r\n`

const requestBody = (r: RequestSpec) =>
  r.body === undefined
    ? { framing: "", bytes: "" }
    : r.body.framing === "chunked"
      ? { framing: "Transfer-Encoding: chunked\r\n", bytes: chunkedBody(r.body.chunks) }
      : { framing: `Content-Length: ${r.body.chunks.join("").length}\r\n`, bytes: r.body.chunks.join("") }

/** The request as the client sends it. */
export const rawRequest = (r: RequestSpec, id: number): string => {
  const body = requestBody(r)
  const version = r.other === "http10" ? "HTTP/1.0" : "HTTP/1.1"
  const hop = r.hop
    ? "Connection: keep-alive, x-secret\r\nx-secret: s\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n"
    : ""
  const upgrade = r.other === "upgrade" ? "Connection: Upgrade\r\nUpgrade: websocket\r\n" : ""
  const forwarded = r.forwardedFor ? "X-Forwarded-For: 10.0.0.1\r\n" : ""
  return `${r.method} /r${id} ${version}\r\nHost: ${host(r)}\r\nx-req: ${id}\r\n${body.framing}${hop}${upgrade}${forwarded}\r\n${body.bytes}`
}

/** The request as the daemon must receive it: hop-by-hop headers gone, X-Forwarded-* and the hop count set. */
export const forwardedRequest = (r: RequestSpec, id: number): string => {
  const body = requestBody(r)
  const forwardedFor = r.forwardedFor ? `10.0.0.1, ${REMOTE}` : REMOTE
  return `${r.method} /r${id} HTTP/1.1\r\nHost: ${host(r)}\r\nx-req: ${id}\r\n${body.framing}x-forwarded-for: ${forwardedFor}\r\nx-forwarded-host: ${host(r)}\r\nx-forwarded-proto: http\r\nx-supervisor-hops: 1\r\n\r\n${body.bytes}`
}

/** Whether a response has no body whatever its head says. */
const bodiless = (r: RequestSpec) =>
  r.method === "HEAD" || r.response.status === 204 || r.response.status === 304

/** The daemon's answer; `close`: it closes its connection after it. */
export const daemonResponse = (r: RequestSpec, id: number, dropHops = false) => {
  const res = r.response
  const interim = res.interim ? "HTTP/1.1 100 Continue\r\n\r\n" : ""
  const hop = res.hop && !dropHops ? "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n" : ""
  const noBody = bodiless(r)
  const framing =
    res.status === 204 || res.status === 304
      ? ""
      : res.framing === "length"
        ? `Content-Length: ${res.body.length}\r\n`
        : res.framing === "chunked"
          ? "Transfer-Encoding: chunked\r\n"
          : ""
  const body = noBody ? "" : res.framing === "chunked" ? chunkedBody([res.body]) : res.body
  return {
    bytes: `${interim}HTTP/1.1 ${res.status} R\r\nx-req: ${id}\r\n${hop}${framing}\r\n${body}`,
    close: !noBody && res.framing === "close",
  }
}

/** The answer as the client must receive it: the daemon's connection headers gone. */
export const clientResponse = (r: RequestSpec, id: number): string => daemonResponse(r, id, true).bytes

/** The client's bytes, and where the first request left to Node's server (or the long head) starts. */
export const clientBytes = (s: Scenario) => {
  let bytes = ""
  let relayed = s.requests.length
  let handOffAt = -1
  s.requests.forEach((r, id) => {
    if (r.other !== undefined && handOffAt < 0) {
      relayed = id
      handOffAt = bytes.length
    }
    bytes += rawRequest(r, id)
  })
  if (s.longHead && handOffAt < 0) handOffAt = bytes.length
  if (s.longHead) bytes += `GET /${"x".repeat(MAX_HEAD + 100)}`
  return {
    bytes,
    /** The requests the relay forwards itself. */
    relayed,
    /** Where the bytes given to Node's server start, when they are. */
    handOffAt,
  }
}
