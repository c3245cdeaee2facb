import type { Server } from "node:http"
import type { Duplex } from "node:stream"

/** The status, reason and message of a request Node's parser refused. */
const answerOf = (code: string | undefined): readonly [number, string, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", "the request's headers and URL exceed 16 KB"]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "the request did not arrive in time"]
    default:
      return [
        400,
        "Bad Request",
        `the request is not valid HTTP (${code ?? "unknown"}); a body needs a Content-Length or chunked encoding`,
      ]
  }
}

/**
 * A request Node's HTTP parser cannot read (headers over 16 KB, bytes that are not HTTP, a body
 * sent without a length) is answered by Node itself with an empty body; this gives that answer
 * the API's JSON error body `{ _tag, message }`. Returns the server.
 */
export const jsonClientErrors = <S extends Server>(server: S): S => {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // as Node's own handler: nothing more once a response on this connection has begun
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) return socket.destroy()
    const [status, reason, message] = answerOf(err.code)
    const body = JSON.stringify({ _tag: status === 400 ? "BadRequest" : reason.replaceAll(" ", ""), message })
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
    )
  })
  return server
}
