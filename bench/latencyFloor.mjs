// The machine's floor for an event's latency, measured beside a bench: a bare writer process
// sends its clock over a Unix socket ~50 times a second, a bare reader process takes each line's
// latency. No supervisor, no HTTP, no JSON: what the scheduler alone costs a reader to wake up.
// The writer runs in a session of its own, as the supervisor does; the reader in the bench's,
// as the bench's own client does.
//   floorPair(dir) -> { stop(): Promise<number[]> } (sorted latencies, ms)
//   node bench/latencyFloor.mjs reader SOCKET | writer SOCKET   (the two roles)
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import { createConnection, createServer } from "node:net"
import { join } from "node:path"

const [role, socketPath] = process.argv.slice(2)

if (role === "reader") {
  const latencies = []
  const server = createServer((c) => {
    let rest = ""
    c.setEncoding("utf8")
    c.on("data", (chunk) => {
      const now = Date.now()
      const lines = (rest + chunk).split("\n")
      rest = lines.pop()
      for (const line of lines) latencies.push(now - Number(line))
    })
  })
  server.listen(socketPath, () => process.stdout.write("ready\n"))
  process.on("SIGTERM", () => {
    process.stdout.write(`${JSON.stringify(latencies)}\n`, () => process.exit(0))
  })
} else if (role === "writer") {
  const c = createConnection(socketPath)
  c.on("connect", () => setInterval(() => c.write(`${Date.now()}\n`), 20))
  c.on("error", () => process.exit(0))
}

/** Starts the pair; `stop` ends it and resolves the reader's latencies, sorted. */
export const floorPair = async (dir) => {
  const socketPath = join(dir, "floor.sock")
  rmSync(socketPath, { force: true })
  const self = new URL(import.meta.url).pathname
  const reader = spawn(process.execPath, [self, "reader", socketPath], {
    stdio: ["ignore", "pipe", "inherit"],
  })
  let out = ""
  reader.stdout.setEncoding("utf8")
  reader.stdout.on("data", (d) => {
    out += d
  })
  await new Promise((ok) => {
    const check = () => (out.includes("ready\n") ? ok() : setTimeout(check, 10))
    check()
  })
  const writer = spawn(process.execPath, [self, "writer", socketPath], { stdio: "ignore", detached: true })
  return {
    stop: async () => {
      writer.kill("SIGKILL")
      const exited = new Promise((ok) => reader.once("exit", ok))
      reader.kill("SIGTERM")
      await exited
      const line = out.split("\n").find((l) => l.startsWith("["))
      return (line === undefined ? [] : JSON.parse(line)).sort((a, b) => a - b)
    },
  }
}
