// A world for the native front (dist/proxy-front) alone: a daemon that can be told how to answer,
// a hand-off socket recording what it is given, and the front's control lines played here.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pemOnLine } from "../../../src/proxy/native/front.js"
import { type LocalCa, loadOrCreateCa } from "../../../src/proxy/tls/ca.js"
import { type LeafCache, leafCache } from "../../../src/proxy/tls/leaf.js"
import { waitFor } from "../../e2e/harness.js"

export const FRONT = resolve(__dirname, "../../../dist/proxy-front")
if (!existsSync(FRONT)) throw new Error(`${FRONT} is not built: run npm run build (it needs a C compiler)`)

/** A raw daemon: each request head it reads is answered by `answer` (undefined: say nothing). */
export interface RawDaemon {
  readonly port: number
  /** Every byte each of its connections received, in order. */
  readonly received: Array<string>
  connections: number
  answer: (head: string, socket: net.Socket) => string | Buffer | undefined
  /** Called as each head arrives, before its body (an early answer). */
  onHead: ((head: string, socket: net.Socket) => void) | undefined
  readonly close: () => void
}

export const rawDaemon = async (): Promise<RawDaemon> => {
  const sockets = new Set<net.Socket>()
  const d: RawDaemon = {
    port: 0,
    received: [],
    connections: 0,
    answer: () => "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
    onHead: undefined,
    close: () => {
      for (const s of sockets) s.destroy()
      server.close()
    },
  }
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket)
    const index = d.received.length
    d.received.push("")
    d.connections++
    let pending = ""
    socket.on("data", (chunk) => {
      d.received[index] += chunk.toString("latin1")
      pending += chunk.toString("latin1")
      for (let end = pending.indexOf("\r\n\r\n"); end >= 0; end = pending.indexOf("\r\n\r\n")) {
        const head = pending.slice(0, end)
        if (d.onHead !== undefined) {
          d.onHead(head, socket)
          pending = ""
          break
        }
        const length = /\r\ncontent-length: *(\d+)/i.exec(head)
        const total = end + 4 + (length ? Number(length[1]) : 0)
        if (pending.length < total) break
        pending = pending.slice(total)
        const out = d.answer(head, socket)
        if (out !== undefined) socket.write(out)
      }
    })
    socket.on("error", () => {})
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return Object.assign(d, { port: (server.address() as net.AddressInfo).port })
}

/** What the worker would answer to the front's `route`: a control line (without its id), by host. */
export type Router = (host: string, hops: number) => string

export interface FrontWorld {
  readonly port: number
  readonly lines: Array<string>
  /** What each handed-off connection carried, in order. */
  readonly handed: Array<string>
  router: Router
  /** What the hand-off socket answers once it has a whole head (undefined: nothing). */
  handAnswer: string | undefined
  readonly send: (line: string) => void
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  readonly stop: () => Promise<void>
}

/** A local CA and its leaves for a front that speaks TLS (made once per test file: RSA keys are slow). */
let tlsWorld: { readonly ca: LocalCa; readonly leaves: LeafCache } | undefined
export const frontTls = () => {
  if (tlsWorld === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "front-ca-"))
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
    const ca = loadOrCreateCa(dir)
    tlsWorld = { ca, leaves: leafCache(ca, "localhost") }
  }
  return tlsWorld
}

export const startFront = async (
  router: Router,
  options: {
    readonly idle?: number
    readonly responseTimeout?: number
    readonly tls?: boolean
    /** A limit on its open files (RLIMIT_NOFILE), set by the shell that starts it. */
    readonly maxFiles?: number
  } = {},
): Promise<FrontWorld> => {
  const name = `front-test-${process.pid}-${Math.random().toString(36).slice(2)}`
  const handed: Array<string> = []
  const hand = net.createServer({ allowHalfOpen: true }, (socket) => {
    const index = handed.length
    handed.push("")
    let answered = false
    socket.on("data", (chunk) => {
      handed[index] += chunk.toString("latin1")
      if (!answered && world.handAnswer !== undefined && handed[index]!.includes("\r\n\r\n")) {
        answered = true
        socket.end(world.handAnswer)
      }
    })
    socket.on("error", () => {})
  })
  await new Promise<void>((done) => hand.listen(`\0${name}`, done))
  const args = [
    "127.0.0.1",
    "0",
    `@${name}`,
    String(options.idle ?? 5000),
    String(options.responseTimeout ?? 120_000),
    ...(options.tls === true ? ["tls"] : []),
  ]
  const child =
    options.maxFiles === undefined
      ? spawn(FRONT, args, { stdio: ["pipe", "pipe", "inherit"] })
      : spawn("/bin/sh", ["-c", `ulimit -n ${options.maxFiles} && exec "$0" "$@"`, FRONT, ...args], {
          stdio: ["pipe", "pipe", "inherit"],
        })
  if (options.tls === true) {
    const { leaves } = frontTls()
    child.stdin!.write(`key ${pemOnLine(leaves.keyPem)}\nfallback ${pemOnLine(leaves.fallbackPem.cert)}\n`)
  }
  const lines: Array<string> = []
  let pending = ""
  child.stdout!.setEncoding("latin1")
  child.stdout!.on("data", (text: string) => {
    pending += text
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl)
      pending = pending.slice(nl + 1)
      lines.push(line)
      const [word, id, hops, ...host] = line.split(" ")
      if (word === "route")
        child.stdin!.write(`${world.router(host.join(" "), Number(hops)).replace("ID", id!)}\n`)
      if (word === "cert")
        void frontTls()
          .leaves.certPem(hops!)
          .then((pem) => child.stdin!.write(`cert ${id} ${pem === undefined ? "-" : pemOnLine(pem)}\n`))
    }
  })
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  const world: FrontWorld = {
    port: 0,
    lines,
    handed,
    router,
    handAnswer: "HTTP/1.1 299 Handed\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
    send: (line) => void child.stdin!.write(`${line}\n`),
    child,
    exited,
    stop: async () => {
      child.kill("SIGKILL")
      await exited
      hand.close()
    },
  }
  const listening = await waitFor("the front listening", () => lines.find((l) => l.startsWith("listening ")))
  return Object.assign(world, { port: Number(listening.split(" ")[1]) })
}

/** A client connection: what it sends and everything it receives, and whether it was closed. */
export interface Client {
  readonly socket: net.Socket
  text: string
  closed: boolean
  readonly write: (s: string | Buffer) => void
}

export const client = (port: number): Client => {
  const socket = net.connect({ port, host: "127.0.0.1" })
  const c: Client = {
    socket,
    text: "",
    closed: false,
    write: (s) => void socket.write(s),
  }
  socket.on("data", (d) => {
    c.text += d.toString("latin1")
  })
  socket.on("error", () => {})
  socket.on("close", () => {
    c.closed = true
  })
  return c
}

/** The number of whole responses in `text` with a Content-Length (or none) framing. */
export const responses = (text: string): number =>
  text.split(/(?=HTTP\/1\.1 \d{3} )/).filter((s) => s !== "").length
