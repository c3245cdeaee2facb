import * as net from "node:net"
import { Data, Effect } from "effect"
import { lockIsHeld, lockName } from "./lockName.js"

export { lockName } from "./lockName.js"

/** Whether a supervisor holds the lock of `stateDir` (it may still be starting: no API socket yet). */
export const lockHeld = (stateDir: string) => Effect.promise(() => lockIsHeld(stateDir))

export class AlreadyRunning extends Data.TaggedError("AlreadyRunning")<{ readonly stateDir: string }> {}

/**
 * One supervisor per state directory. On Linux the lock is an abstract Unix
 * socket named after the state directory: binding it is atomic, and the kernel
 * releases it when the process dies, even by SIGKILL, so a stale lock cannot
 * exist and two racing supervisors can never both win.
 */
export const acquireSupervisorLock = (stateDir: string) =>
  Effect.acquireRelease(
    Effect.async<net.Server, AlreadyRunning>((resume) => {
      const name = lockName(stateDir)
      const server = net.createServer((socket) => socket.destroy())
      server.once("error", () => resume(Effect.fail(new AlreadyRunning({ stateDir }))))
      server.listen({ path: name }, () => {
        server.unref()
        resume(Effect.succeed(server))
      })
    }),
    (server) => Effect.sync(() => server.close()),
  )
