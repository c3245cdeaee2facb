// Plain HTTP sent to the HTTPS port (`http://shop.localhost:7443/`) would fail the TLS handshake
// and get an empty reply. The first byte tells them apart: a TLS connection opens with a
// handshake record (0x16); anything else gets a short HTTP answer pointing to https://.
import type * as net from "node:net"
import type * as tls from "node:tls"

const TLS_HANDSHAKE = 0x16

/** How long a connection may stay silent before its first byte (Node's TLS handshake timeout). */
const FIRST_BYTE_TIMEOUT = 120_000

/** The https:// address of a plain request's first line and Host header, when they parse. */
const httpsUrl = (head: string, port: number): string | undefined => {
  const target = /^[A-Z]+ (\/\S*) HTTP\/1\.[01]\r?\n/.exec(head)?.[1]
  const host = /\r?\nhost:[ \t]*([^\s:]+|\[[^\]]+\])(?::\d+)?[ \t]*\r?\n/i.exec(head)?.[1]
  if (target === undefined || host === undefined || !/^[\w.[\]:-]+$/.test(host)) return undefined
  return `https://${host}:${port}${target}`
}

/** The answer to a plain HTTP request: 400, as text, the same address over https:// when known. */
export const plainHttpAnswer = (head: string, port: number): string => {
  const url = httpsUrl(head, port)
  const body = `400 Bad Request\n\nThis port of the supervisor's proxy speaks HTTPS, not plain HTTP: ${
    url === undefined ? `use https:// (port ${port})` : `open ${url}`
  }\n`
  return [
    "HTTP/1.1 400 Bad Request",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n")
}

/**
 * Puts a first-byte check in front of `server`'s TLS: its own connection listeners get the TLS
 * connections, with the byte read put back; the others get the plain answer and are closed.
 */
export const answerPlainHttp = (server: tls.Server): void => {
  const tlsListeners = server.listeners("connection") as Array<(socket: net.Socket) => void>
  server.removeAllListeners("connection")
  server.on("connection", (socket: net.Socket) => {
    // an error before the hand-over (a reset) ends this connection, never the supervisor
    socket.on("error", () => socket.destroy())
    socket.setTimeout(FIRST_BYTE_TIMEOUT, () => socket.destroy())
    socket.once("data", (chunk: Buffer) => {
      socket.pause()
      socket.setTimeout(0)
      if (chunk[0] === TLS_HANDSHAKE) {
        socket.unshift(chunk)
        for (const listener of tlsListeners) listener.call(server, socket)
        return
      }
      const port = socket.localPort ?? 0
      socket.end(plainHttpAnswer(chunk.toString("latin1"), port))
    })
  })
}
