import { chmodSync } from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, type Running, spawnCli, waitFor } from "../e2e/harness.js"
import { isRoot, setFaults, tickerProject, withFaults } from "./storageFixture.js"

// Storage problems are events: the log directory made unwritable (chmod; as root, which chmod does
// not stop, the same EACCES injected at the file-system layer) is a `StorageProblem` event with the
// file, the operation and the error, on `supervisor events --json` and `GET /api/events`; writable
// again, a `StorageRecovered` event.

interface Item {
  readonly _tag: string
  readonly seq?: number
  readonly area?: string
  readonly file?: string
  readonly operation?: string
  readonly code?: string
  readonly message?: string
  readonly failed_writes?: number
  readonly since?: number
}

const parse = (text: string): Array<Item> =>
  text
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Item)

let sb: DaemonSandbox | undefined
const followers: Array<Running> = []
const sockets: Array<net.Socket> = []
afterEach(() => {
  for (const f of followers.splice(0)) f.child.kill("SIGTERM")
  for (const s of sockets.splice(0)) s.destroy()
  sb?.destroy()
  sb = undefined
})

/** `GET /api/events?since=0` on the supervisor's socket: everything it answered so far. */
const apiEvents = async (stateDir: string): Promise<() => string> => {
  const socket = net.connect(join(stateDir, "sock", "api.sock"))
  sockets.push(socket)
  await new Promise<void>((res) => socket.once("connect", () => res()))
  let text = ""
  socket.setEncoding("utf8")
  socket.on("data", (d: string) => {
    text += d
  })
  socket.write("GET /api/events?since=0 HTTP/1.1\r\nHost: localhost\r\n\r\n")
  return () => text
}

describe("storage problems on the event stream", () => {
  it("an unwritable log directory: StorageProblem (file, operation, error), then StorageRecovered", async () => {
    sb = makeDaemonSandbox()
    const faults = withFaults(sb)
    const app = tickerProject(sb)
    expect(sb.cli(["start", "ticker"], app).status).toBe(0)
    // from the first event: none is missed, whenever the follower connects
    const events = spawnCli(["events", "--json", "--since", "0"], { cwd: app, env: sb.env })
    followers.push(events)
    const logs = join(sb.stateDir, "logs")
    const index = join(logs, "app--ticker.idx")
    const failing = (items: ReadonlyArray<Item>) =>
      items.find((e) => e._tag === "StorageProblem" && e.file === index)
    const api = await apiEvents(sb.stateDir)
    if (isRoot) setFaults(faults, [`EACCES ${logs}/`])
    else chmodSync(logs, 0o500)
    try {
      const problem = await waitFor("the StorageProblem event", () => failing(parse(events.stdout())), {
        timeout: 30_000,
      })
      expect(problem).toMatchObject({
        area: "logs",
        file: index,
        operation: "write",
        code: "EACCES",
        message: expect.stringContaining(`permission denied: make ${index} and ${logs} writable`),
      })
      // the same event, with the same seq, on GET /api/events
      const viaApi = await waitFor("the event on GET /api/events", () => failing(parse(api())))
      expect(viaApi).toEqual(problem)
    } finally {
      if (isRoot) setFaults(faults, [])
      else chmodSync(logs, 0o700)
    }
    const recovered = await waitFor(
      "the StorageRecovered event",
      () => parse(events.stdout()).find((e) => e._tag === "StorageRecovered" && e.file === index),
      { timeout: 30_000 },
    )
    expect(recovered).toMatchObject({ area: "logs", file: index, code: "EACCES" })
    expect(recovered.failed_writes).toBeGreaterThanOrEqual(1)
    expect(recovered.message).toMatch(
      /write\(s\) to .*app--ticker\.idx failed from .* \(EACCES\); it is writable again$/,
    )
    // published once each way, in order
    const storage = parse(events.stdout()).filter((e) => e._tag.startsWith("Storage") && e.file === index)
    expect(storage.map((e) => e._tag)).toEqual(["StorageProblem", "StorageRecovered"])
    // the readable form says it too
    const plain = spawnCli(["events", "--since", "0"], { cwd: app, env: sb.env })
    followers.push(plain)
    await waitFor("the readable storage lines", () => plain.stdout().includes("it is writable again"))
    expect(plain.stdout()).toMatch(/storage \(logs\): cannot write .*app--ticker\.idx \(EACCES\): /)
  }, 90_000)
})
