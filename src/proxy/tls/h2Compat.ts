import type * as http from "node:http"
import type * as http2 from "node:http2"

/**
 * HTTP/2 requests made to look like HTTP/1.1 ones for a handler written for both: no
 * pseudo-headers in `headers` (they are not valid header names to forward), the host in `host`;
 * and responses that drop the HTTP/1 connection headers Node refuses on HTTP/2 (it throws).
 */

/** Headers HTTP/2 forbids in a response (RFC 9113 8.2.2); a proxy copying a daemon's would fail. */
const CONNECTION_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
])

/** Shadows `req.headers` with a copy without `:method`, `:path`, ...; `req.url` and `req.method` still work. */
export const http1Headers = (req: http2.Http2ServerRequest): void => {
  const headers: http.IncomingHttpHeaders = {}
  for (const [name, value] of Object.entries(req.headers)) if (!name.startsWith(":")) headers[name] = value
  const authority = req.headers[":authority"]
  if (headers.host === undefined && typeof authority === "string") headers.host = authority
  Object.defineProperty(req, "headers", {
    value: headers,
    enumerable: true,
    configurable: true,
    writable: true,
  })
}

const allowed = (name: string) => !CONNECTION_HEADERS.has(name.toLowerCase())

/** Filters a writeHead headers argument: an object, or a flat [name, value, ...] array. */
const filtered = (headers: unknown): unknown => {
  if (Array.isArray(headers)) {
    const kept: Array<unknown> = []
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (allowed(String(headers[i]))) kept.push(headers[i], headers[i + 1])
    return kept
  }
  if (headers !== null && typeof headers === "object")
    return Object.fromEntries(Object.entries(headers).filter(([name]) => allowed(name)))
  return headers
}

/** Makes `setHeader` and `writeHead` of an HTTP/2 response skip the connection headers. */
export const dropConnectionHeaders = (res: http2.Http2ServerResponse): void => {
  const setHeader = res.setHeader.bind(res)
  res.setHeader = (name: string, value: number | string | ReadonlyArray<string>) =>
    allowed(name) ? setHeader(name, value) : res
  const writeHead = res.writeHead.bind(res) as (...args: Array<unknown>) => http2.Http2ServerResponse
  // writeHead(status, headers?) or writeHead(status, message, headers?): the headers are last
  res.writeHead = ((...args: Array<unknown>) => {
    const last = args.length - 1
    if (last >= 1 && typeof args[last] !== "string") args[last] = filtered(args[last])
    return writeHead(...args)
  }) as typeof res.writeHead
}
