import * as net from "node:net"
import { type Duration, Effect } from "effect"

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

/**
 * One `ready_port` attempt: true when a TCP connection to 127.0.0.1 or ::1 on `port`
 * succeeds within `attemptTimeout`.
 */
export const probePort = (port: number, attemptTimeout: Duration.DurationInput): Effect.Effect<boolean> =>
  Effect.all([connects("127.0.0.1", port), connects("::1", port)], { concurrency: 2 }).pipe(
    Effect.map(([v4, v6]) => v4 || v6),
    Effect.timeoutTo({ duration: attemptTimeout, onTimeout: () => false, onSuccess: (ok) => ok }),
  )
