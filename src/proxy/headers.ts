import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http"

/** The header counting how many times a request went through a supervisor proxy (loop detection). */
export const HOPS_HEADER = "x-supervisor-hops"
/** More proxies than this on one request is a loop: 508. */
export const MAX_HOPS = 5

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection and are never forwarded. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  // HTTP/2 forbids it too
  "http2-settings",
])

const first = (v: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof v === "string" ? v : v?.[0]

/** The headers named in `Connection` (lower case): hop-by-hop too. */
const connectionNamed = (headers: IncomingHttpHeaders): Set<string> =>
  new Set(
    (first(headers.connection) ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ""),
  )

/** Headers without the hop-by-hop ones, those named in `Connection`, and HTTP/2 pseudo-headers. */
export const endToEnd = (headers: IncomingHttpHeaders): OutgoingHttpHeaders => {
  const named = connectionNamed(headers)
  const out: OutgoingHttpHeaders = {}
  for (const [key, value] of Object.entries(headers)) {
    const k = key.toLowerCase()
    if (value === undefined || k.startsWith(":") || HOP_BY_HOP.has(k) || named.has(k)) continue
    out[k] = value
  }
  return out
}

/** The host a request is for: `Host`, or `:authority` over HTTP/2; undefined when it has none. */
export const requestHost = (headers: IncomingHttpHeaders, httpVersionMajor: number): string | undefined => {
  const value = httpVersionMajor === 2 ? (first(headers[":authority"]) ?? headers.host) : headers.host
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

/** How many proxies the request went through already (a bad value counts as 0). */
export const hopsOf = (headers: IncomingHttpHeaders): number => {
  const n = Number.parseInt(first(headers[HOPS_HEADER]) ?? "0", 10)
  return Number.isFinite(n) && n > 0 ? n : 0
}

/** The labels of a host before `.<tld>` (`api.shop.localhost:7443` → `api`, `shop`); undefined outside the TLD. */
const hostLabels = (host: string, tld: string): ReadonlyArray<string> | undefined => {
  const name = host.toLowerCase().replace(/:\d*$/, "").replace(/\.$/, "")
  const suffix = `.${tld.toLowerCase()}`
  if (name.startsWith("[") || !name.endsWith(suffix)) return undefined // an IPv6 literal, or another domain
  return name.slice(0, -suffix.length).split(".")
}

/** The label `from` the end of a host's labels before the TLD (1: the last), if not empty. */
const labelAt = (labels: ReadonlyArray<string> | undefined, from: number): string | undefined => {
  const label = labels?.at(-from)
  return label === "" ? undefined : label
}

const labelOf = (host: string, tld: string, from: number): string | undefined =>
  labelAt(hostLabels(host, tld), from)

/**
 * The slug a host names: the label right before `.<tld>` (`shop.localhost:7443` and
 * `api.shop.localhost` are both `shop`); undefined for a host outside the TLD.
 */
export const slugOfHost = (host: string, tld: string): string | undefined => labelOf(host, tld, 1)

/**
 * The label right before the slug (`feature-x.shop.localhost` → `feature-x`): the worktree a
 * request may be for (docs/worktrees.md); undefined for a host of one label before the TLD.
 */
export const worktreeOfHost = (host: string, tld: string): string | undefined => labelOf(host, tld, 2)

/** `slugOfHost` and `worktreeOfHost` at once, reading the host once (the proxy's every request). */
export const namesOfHost = (
  host: string,
  tld: string,
): { readonly slug: string | undefined; readonly worktree: string | undefined } => {
  const labels = hostLabels(host, tld)
  return { slug: labelAt(labels, 1), worktree: labelAt(labels, 2) }
}

export interface ForwardContext {
  /** The client's address (the socket's remote address). */
  readonly remoteAddress: string | undefined
  /** The original host (Host or :authority). */
  readonly host: string
  readonly proto: "http" | "https"
  readonly hops: number
}

/**
 * The headers sent to the daemon: end-to-end headers, the original Host kept (dev servers check
 * it), `X-Forwarded-For` appended to, `X-Forwarded-Host|Proto` set, and the hop count raised.
 */
export const forwardHeaders = (headers: IncomingHttpHeaders, ctx: ForwardContext): OutgoingHttpHeaders => {
  const out = endToEnd(headers)
  out.host = ctx.host
  const client = ctx.remoteAddress?.replace(/^::ffff:/, "")
  const before = first(headers["x-forwarded-for"])
  if (client !== undefined) out["x-forwarded-for"] = before === undefined ? client : `${before}, ${client}`
  out["x-forwarded-host"] = ctx.host
  out["x-forwarded-proto"] = ctx.proto
  out[HOPS_HEADER] = String(ctx.hops + 1)
  return out
}

/** The request line and headers of an upgrade request, as raw HTTP/1.1 for the daemon's socket. */
export const upgradeRequestHead = (
  method: string,
  url: string,
  headers: OutgoingHttpHeaders,
  upgrade: string,
): string => {
  const lines = [`${method} ${url} HTTP/1.1`]
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue
    for (const v of Array.isArray(value) ? value : [value])
      lines.push(`${key}: ${String(v).replace(/[\r\n]/g, "")}`)
  }
  lines.push("connection: Upgrade", `upgrade: ${upgrade.replace(/[\r\n]/g, "")}`)
  return `${lines.join("\r\n")}\r\n\r\n`
}
