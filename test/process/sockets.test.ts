import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import {
  listeningPortsOf,
  listeningSockets,
  makeSocketInodes,
  onDemand,
  parseListening,
  portHolder,
  socketInodesOf,
} from "../../src/process/sockets.js"

const servers: Array<net.Server> = []

/** A real listener on `host`, port 0; resolves to the port the kernel assigned. */
const listen = (host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    servers.push(server)
    server.once("error", reject)
    server.listen({ host, port: 0 }, () => {
      const address = server.address()
      if (address === null || typeof address === "string") reject(new Error("no TCP address"))
      else resolve(address.port)
    })
  })

const close = (server: net.Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()))

afterEach(async () => {
  await Promise.all(servers.splice(0).map(close))
})

const portsInTable = (): ReadonlyArray<number> => [...listeningSockets().values()]

/**
 * The name `/proc/<pid>/comm` gives this process: node's `process.title`, cut to 15 characters.
 * Plain node is "node"; vitest retitles its fork workers "node (vitest N)".
 */
const ownComm = fs.readFileSync(`/proc/${process.pid}/comm`, "utf8").replace(/\n$/, "")

describe("parseListening", () => {
  it("keeps LISTEN rows only and reads the hex port", () => {
    const text = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0",
      "   1: 0100007F:0BB8 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 4243 1 0 20 4 30 10 -1",
      "   2: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0 100 0 0 10 0",
      "   3: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 0 1 0 100 0 0 10 0",
      "",
    ].join("\n")
    expect([...parseListening(text)]).toEqual([
      [4242, 3000],
      [99, 8080],
    ])
  })
  it("reads nothing from an empty table", () => expect(parseListening("").size).toBe(0))
})

describe("reading real sockets", () => {
  it("this process's comm is node's title", () => {
    expect(ownComm).toBe(process.title.slice(0, 15))
    expect(ownComm).toMatch(/^node\b/)
  })

  it.each(["127.0.0.1", "::"])("finds a listener on %s", async (host) => {
    const port = await listen(host)
    expect(portsInTable()).toContain(port)
    expect(listeningPortsOf([process.pid])).toContain(port)
    expect(portHolder(port)).toEqual({ pid: process.pid, name: ownComm })
  })

  it("lists this process's socket inodes", async () => {
    const port = await listen("127.0.0.1")
    const inode = [...listeningSockets()].find(([, p]) => p === port)?.[0]
    expect(inode).toBeDefined()
    expect(socketInodesOf(process.pid)).toContain(inode)
  })

  it("returns sorted unique ports", async () => {
    const ports = [await listen("127.0.0.1"), await listen("::"), await listen("127.0.0.1")]
    const mine = listeningPortsOf([process.pid, process.pid]).filter((p) => ports.includes(p))
    expect(mine).toEqual([...new Set(ports)].sort((a, b) => a - b))
  })

  it("does not find a closed port", async () => {
    const port = await listen("127.0.0.1")
    await Promise.all(servers.splice(0).map(close))
    expect(portsInTable()).not.toContain(port)
    expect(listeningPortsOf([process.pid])).not.toContain(port)
    expect(portHolder(port)).toBeUndefined()
  })

  it("treats a vanished process as having no sockets", () => {
    expect(socketInodesOf(2 ** 22 + 1)).toEqual([])
    expect(listeningPortsOf([2 ** 22 + 1])).toEqual([])
  })

  it("reads the socket table only when one of the processes holds a socket", async () => {
    // a process with no socket at all: stdio from and to /dev/null
    const child = spawn("sleep", ["30"], { stdio: "ignore" })
    try {
      const pid = child.pid as number
      expect(socketInodesOf(pid)).toEqual([])
      let reads = 0
      const table = onDemand(() => {
        reads++
        return listeningSockets()
      })
      expect(listeningPortsOf([pid], table)).toEqual([])
      expect(reads).toBe(0)
      // this process listens: the table is read, once, however often it is asked
      const port = await listen("127.0.0.1")
      expect(listeningPortsOf([process.pid], table)).toContain(port)
      expect(listeningPortsOf([pid, process.pid], table)).toContain(port)
      expect(reads).toBe(1)
    } finally {
      child.kill("SIGKILL")
    }
  })
})

describe("the socket inodes kept between passes", () => {
  it("are read again when the fd count changes, and after half to all of the kept time, at random", () => {
    let t = 0
    const reads: Array<number> = []
    const counts = new Map<number, number>()
    let draw = 0
    const inodesOf = makeSocketInodes(
      30_000,
      () => t,
      (pid) => {
        reads.push(pid)
        return [pid * 10]
      },
      (pid) => counts.get(pid) ?? 3,
      () => [0, 0.5, 1][draw++ % 3]!,
    )
    const pids = Array.from({ length: 30 }, (_, i) => i + 1)
    for (const pid of pids) expect(inodesOf(pid)).toEqual([pid * 10])
    expect(reads).toHaveLength(30)
    // a pass every 5 s: each process is read again once its drawn age (15, 22.5 or 30 s) is over
    const perPass: Array<number> = []
    const readAgain = new Set<number>()
    for (t = 5_000; t <= 30_000; t += 5_000) {
      reads.length = 0
      for (const pid of pids) inodesOf(pid)
      perPass.push(reads.length)
      for (const pid of reads) readAgain.add(pid)
    }
    // none before 15 s; then a third at a time (ages of 15, 22.5 and 30 s), and every one by 30 s
    expect(perPass.slice(0, 3)).toEqual([0, 0, 10])
    expect(Math.max(...perPass)).toBeLessThan(pids.length)
    expect(readAgain.size).toBe(pids.length)
    // a changed fd count is read at once
    reads.length = 0
    counts.set(7, 4)
    inodesOf(7)
    expect(reads).toEqual([7])
  })
})
