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
  const upgraded = new Set<Duplex>()
  server.emit = ((event: string, ...args: Array<unknown>) => {
    if (event !== "upgrade") return emit(event, ...args)
    const socket = args[1] as Duplex
    upgraded.add(socket)
    socket.once("close", () => upgraded.delete(socket))
    handler(args[0] as IncomingMessage, socket, args[2] as Buffer)
    return true
  }) as S["emit"]
  // An upgraded socket is no HTTP connection any more: closing the server would wait for it.
  const close = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void): S => {
    for (const socket of upgraded) socket.destroy()
    close(callback)
    return server
  }
  // Node hands a request to `upgrade` only when someone listens for it (else to `request`)
  server.on("upgrade", () => undefined)
  return server
}
