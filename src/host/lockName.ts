// The name of a state directory's supervisor lock, in plain Node (the hook's `cd` checks it too).
import { createHash } from "node:crypto"
import * as net from "node:net"

/** The abstract socket that is the lock of a state directory. */
export const lockName = (stateDir: string) =>
  `\0supervisor-${createHash("sha256").update(stateDir).digest("hex").slice(0, 32)}`

/** Whether a supervisor holds the lock of `stateDir` (it may still be starting: no API socket yet). */
export const lockIsHeld = (stateDir: string): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createConnection({ path: lockName(stateDir) })
    s.once("connect", () => {
      s.destroy()
      resolve(true)
    })
    s.once("error", () => resolve(false))
  })
