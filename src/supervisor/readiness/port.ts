import * as net from "node:net"
import { type Duration, Effect } from "effect"
import {
  holdsAny,
  inodesOn,
  type PortHolder,
  readListeningSockets,
  socketHolder,
} from "../../process/sockets.js"

/** What one `ready_port` attempt saw. */
export type PortAnswer =
  /** Nothing listens on the port (yet). */
  | { readonly _tag: "Closed" }
  /** A process of the daemon's tree listens on it (without /proc: something accepts connections). */
  | { readonly _tag: "Listening" }
  /** Only processes outside the daemon's tree listen on it; `holder` when it can be seen. */
  | { readonly _tag: "Foreign"; readonly holder: PortHolder | undefined }

const CLOSED: PortAnswer = { _tag: "Closed" }
const LISTENING: PortAnswer = { _tag: "Listening" }

const connects = (host: string, port: number): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    let done = false
    const socket = net.createConnection({ host, port })
    const finish = (ok: boolean) => {
      if (done) return
      done = true
      socket.destroy()
      resume(Effect.succeed(ok))
    }
    socket.once("connect", () => finish(true))
    socket.once("error", () => finish(false))
    return Effect.sync(() => socket.destroy())
  })

/** True when a TCP connection to 127.0.0.1 or ::1 on `port` succeeds. */
export const acceptsConnections = (port: number): Effect.Effect<boolean> =>
  Effect.all([connects("127.0.0.1", port), connects("::1", port)], { concurrency: 2 }).pipe(
    Effect.map(([v4, v6]) => v4 || v6),
  )

/**
 * One `ready_port` attempt. On Linux the listening sockets are read from `/proc/net/tcp{,6}` and
 * their owners from `/proc/<pid>/fd`: the port is the daemon's only when one of `ownPids` (its
 * process tree, read only when something listens) holds a listening socket on it. Without
 * `/proc` it falls back to a connection to 127.0.0.1 or ::1, which cannot tell whose it is.
 * An attempt that takes longer than `attemptTimeout` is "not yet".
 */
export const probePort = (
  port: number,
  ownPids: Effect.Effect<ReadonlyArray<number>>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<PortAnswer> =>
  Effect.suspend((): Effect.Effect<PortAnswer> => {
    const table = readListeningSockets()
    if (table === undefined) return Effect.map(acceptsConnections(port), (ok) => (ok ? LISTENING : CLOSED))
    const inodes = inodesOn(port, table)
    if (inodes.size === 0) return Effect.succeed(CLOSED)
    return Effect.map(ownPids, (pids) =>
      holdsAny(pids, inodes) ? LISTENING : { _tag: "Foreign", holder: socketHolder(inodes) },
    )
  }).pipe(Effect.timeoutTo({ duration: attemptTimeout, onTimeout: () => CLOSED, onSuccess: (a) => a }))
