// `supervisor supervisor run --force`: a supervisor already running for the state directory is
// asked to exit leaving its daemons running (as `supervisor supervisor start --force` does), so
// that this one adopts them. Plain Node: the host bundle loads no client.
import * as http from "node:http"
import * as net from "node:net"
import { lockIsHeld } from "./lockName.js"

const accepts = (socket: string) =>
  new Promise<boolean>((resolve) => {
    const c = net.connect(socket)
    c.once("connect", () => {
      c.destroy()
      resolve(true)
    })
    c.once("error", () => resolve(false))
  })

/**
 * Asks the supervisor on `socket` to leave, then waits until it is gone: its API closes first,
 * its lock (src/host/lock.ts) only when the process ends (30 s at most in all).
 */
export const replaceRunning = async (socket: string, stateDir: string): Promise<boolean> => {
  if (!(await accepts(socket))) return false
  await new Promise<void>((resolve) => {
    const req = http.request(
      {
        socketPath: socket,
        method: "POST",
        path: "/api/cli/supervisor/stop?keep_daemons=true",
        agent: false,
      },
      (res) => {
        res.resume()
        res.once("end", () => resolve())
      },
    )
    req.once("error", () => resolve())
    req.end()
  })
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline && ((await accepts(socket)) || (await lockIsHeld(stateDir))))
    await new Promise((r) => setTimeout(r, 50))
  return true
}
