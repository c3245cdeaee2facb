import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"

/** Answers every WebSocket upgrade of `server` with `handler`, and no one else. */
export const withUpgrades = <S extends Server>(
  server: S,
  handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
): S => {
  // The platform's HTTP layer registers its own `upgrade` listener, which would answer the same
  // request with a 404: upgrades are taken here, before any listener hears of them.
  const emit = server.emit.bind(server)
  server.emit = ((event: string, ...args: Array<unknown>) => {
    if (event !== "upgrade") return emit(event, ...args)
    handler(args[0] as IncomingMessage, args[1] as Duplex, args[2] as Buffer)
    return true
  }) as S["emit"]
  // Node reports an upgrade only to a server with an `upgrade` listener (else the request goes to
  // the request handler): the TCP listeners have no other, so this one is what makes them answer.
  server.on("upgrade", handler)
  return server
}
