import { STATUS_CODES } from "node:http"
import { type ProxyFailure, renderFailure } from "../pages.js"

/**
 * A failure page as a whole HTTP/1.1 response that closes the connection: its body as the
 * request's `Accept` asks (none for a HEAD request).
 */
export const failureResponse = (
  f: ProxyFailure,
  head: { readonly method: string; readonly accept: string | undefined } | undefined,
): string => {
  const page = renderFailure(f, head?.accept)
  const body = head?.method === "HEAD" ? "" : page.body
  const reason = STATUS_CODES[f.status] ?? f.title
  return `HTTP/1.1 ${f.status} ${reason}\r\ncontent-type: ${page.contentType}\r\ncache-control: no-store\r\ncontent-length: ${Buffer.byteLength(page.body)}\r\nconnection: close\r\n\r\n${body}`
}
