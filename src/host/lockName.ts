// The name of a state directory's supervisor lock, in plain Node (the hook's `cd` checks it too).
import * as net from "node:net"
import { sha256Hex } from "./sha256.js"

/** The abstract socket that is the lock of a state directory. */
export const lockName = (stateDir: string) => `\0supervisor-${sha256Hex(stateDir).slice(0, 32)}`

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
