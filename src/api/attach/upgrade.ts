// `GET /api/daemons/{id}/attach` as a WebSocket (docs/attach.md), on the Unix socket and the TCP
// listeners: the HTTP upgrade is answered here, before the API's router, which knows no WebSocket.
import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { Effect, Either, Runtime } from "effect"
import { WebSocketServer } from "ws"
import { Control } from "../../control/Control.js"
import { qualifiedId } from "../../domain/DaemonId.js"
import { EventLog } from "../../events/EventLog.js"
import { LogStore } from "../../logs/LogStore.js"
import { Supervisor } from "../../supervisor/Supervisor.js"
import { runSession } from "./session.js"

/** A keystroke or a size is small: a frame above this closes the socket (1009). */
const MAX_FRAME = 64 * 1024

const ROUTE = /^\/api\/daemons\/([^/]+)\/attach$/

/** An upgrade refused before it is made: an HTTP status and the API's problem body. */
export interface Refusal {
  readonly status: number
  readonly tag: string
  readonly message: string
}

/** What a listener lets through: the path to route (its base path taken off), or a refusal. */
export type UpgradeCheck = (req: IncomingMessage) => { readonly path: string } | Refusal

/** The Unix socket's check: its file mode is its authentication. */
const onSocket: UpgradeCheck = (req) => ({ path: new URL(req.url ?? "/", "http://localhost").pathname })

/** Answers a refused upgrade with the API's problem body, then closes the connection. */
const refuse = (socket: Duplex, r: Refusal) => {
  const body = JSON.stringify({ _tag: r.tag, message: r.message })
  socket.end(
    `HTTP/1.1 ${r.status} ${r.tag}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
    () => socket.destroy(), // whether or not the client closes its side
  )
}

const size = (value: string | null): number | undefined => {
  const n = value === null ? Number.NaN : Number(value)
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined
}

/** What the upgrade needs of the supervisor; the handler of a server's `upgrade` event. */
export const makeAttachUpgrade = Effect.gen(function* () {
  const deps = { control: yield* Control, sup: yield* Supervisor, events: yield* EventLog }
  const logs = yield* LogStore
  const runtime = yield* Effect.runtime<never>()
  // made at the first attach: `ws` (and the TLS and zlib modules it loads) stays out of a
  // supervisor nobody attaches to (scripts/build.mjs makes the import lazy)
  let wss: WebSocketServer | undefined
  const server = () => (wss ??= new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME }))

  /** The daemon the path names, if it can be attached to. */
  const target = (encoded: string) =>
    Effect.gen(function* () {
      const decoded = yield* Effect.try({
        try: () => decodeURIComponent(encoded),
        catch: (): Refusal => ({
          status: 400,
          tag: "BadDaemonId",
          message: `malformed daemon ID ${encoded}`,
        }),
      })
      const parsed = qualifiedId(decoded)
      if (Either.isLeft(parsed))
        return yield* Effect.fail<Refusal>({ status: 400, tag: "BadDaemonId", message: parsed.left.message })
      const id = parsed.right
      const r = yield* Effect.mapError(
        deps.sup.get(id),
        (e): Refusal => ({ status: 404, tag: "DaemonNotFound", message: e.message }),
      )
      if (!r.def.config.pty)
        return yield* Effect.fail<Refusal>({
          status: 409,
          tag: "NoTerminal",
          message: `daemon ${id} has no terminal to attach to: set pty = true in its [daemons.${r.def.id.name}] table and restart it${r.def.config.stdin === "pipe" ? " (its stdin pipe takes `supervisor send`)" : ""}`,
        })
      if (r.handle === null || r.pid === null)
        return yield* Effect.fail<Refusal>({
          status: 409,
          tag: "NotRunning",
          message: `daemon ${id} is not running (${r.status.type}); start it with: supervisor start ${id}`,
        })
      const paths = yield* Effect.mapError(
        logs.paths(id),
        (e): Refusal => ({ status: 500, tag: "LogUnavailable", message: e.message }),
      )
      return { id, pid: r.pid, rawPath: paths.rawPath }
    })

  return (check: UpgradeCheck = onSocket) =>
    (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      socket.on("error", () => undefined) // a client gone mid-handshake is no error of ours
      const checked = check(req)
      if (!("path" in checked)) {
        refuse(socket, checked)
        return
      }
      const match = ROUTE.exec(checked.path)
      if (match === null || req.method !== "GET") {
        refuse(socket, {
          status: 404,
          tag: "NotFound",
          message: `no WebSocket route ${req.method} ${checked.path}`,
        })
        return
      }
      const query = new URL(req.url ?? "/", "http://localhost").searchParams
      Runtime.runCallback(runtime)(Effect.either(target(match[1]!)), {
        onExit: (exit) => {
          if (exit._tag === "Failure")
            return refuse(socket, { status: 500, tag: "InternalError", message: "attach failed" })
          const t = exit.value
          if (t._tag === "Left") return refuse(socket, t.left)
          server().handleUpgrade(req, socket, head, (ws) => {
            Runtime.runFork(runtime)(
              runSession(deps, ws, {
                ...t.right,
                rows: size(query.get("rows")),
                cols: size(query.get("cols")),
              }).pipe(Effect.catchAllCause(() => Effect.sync(() => ws.terminate()))),
            )
          })
        },
      })
    }
})
