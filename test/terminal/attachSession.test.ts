// The attach session's side of the wire (docs/attach.md) against a WebSocket server on a real Unix
// socket: output bytes to the terminal, keystrokes as binary frames, the detach key, resize
// messages, the exit, and refusals before the upgrade.
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { afterEach, describe, expect, it } from "vitest"
import { type WebSocket, WebSocketServer } from "ws"
import { type AttachEnd, attachSession } from "../../src/terminal/attachSession.js"
import { waitFor } from "../e2e/harness.js"

interface Server {
  readonly socket: string
  readonly clients: Array<{ ws: WebSocket; url: string; frames: Array<{ binary: boolean; data: string }> }>
  /** The next client, once connected. */
  readonly next: () => Promise<Server["clients"][number]>
  readonly close: () => Promise<void>
}

const dirs: Array<string> = []
const servers: Array<Server> = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** A server answering upgrades on a Unix socket; `refuse` answers them with a status and body instead. */
const serve = async (refuse?: { status: number; body: string }): Promise<Server> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "attach-session-"))
  dirs.push(dir)
  const socket = path.join(dir, "api.sock")
  const httpServer = http.createServer()
  const wss = new WebSocketServer({ noServer: true })
  const clients: Server["clients"] = []
  const waiting: Array<(c: Server["clients"][number]) => void> = []
  httpServer.on("upgrade", (req, sock, head) => {
    if (refuse !== undefined) {
      sock.end(
        `HTTP/1.1 ${refuse.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(refuse.body)}\r\nconnection: close\r\n\r\n${refuse.body}`,
      )
      return
    }
    wss.handleUpgrade(req, sock, head, (ws) => {
      const client = { ws, url: req.url ?? "", frames: [] as Array<{ binary: boolean; data: string }> }
      ws.on("message", (data: Buffer, binary) => client.frames.push({ binary, data: data.toString("utf8") }))
      clients.push(client)
      ws.send(JSON.stringify({ _tag: "Attached", id: "app/repl", pid: 42 }))
      waiting.shift()?.(client)
    })
  })
  await new Promise<void>((resolve) => httpServer.listen(socket, resolve))
  const server: Server = {
    socket,
    clients,
    next: () =>
      clients.length > 0 && waiting.length === 0
        ? Promise.resolve(clients[clients.length - 1]!)
        : new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const c of wss.clients) c.terminate()
        httpServer.close(() => resolve())
      }),
  }
  servers.push(server)
  return server
}

/** A terminal of streams: what is typed goes into `input`, what is shown is collected from `output`. */
const terminal = (rows = 24, columns = 80) => {
  const input = new PassThrough()
  const output = Object.assign(new PassThrough(), { isTTY: true, rows, columns })
  let shown = ""
  output.on("data", (c: Buffer) => {
    shown += c.toString("utf8")
  })
  return {
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream & PassThrough,
    type: (text: string | Buffer) => input.write(text),
    shown: () => shown,
  }
}

/** Resolves once `test` holds (polled, with a deadline). */
const until = (test: () => boolean) => waitFor(test.toString(), test, { interval: 5 })

const open = async (server: Server, t: ReturnType<typeof terminal>, detachKey = 0x1d) => {
  let attachedPid: number | undefined
  const ended = attachSession({
    address: { url: `ws+unix://${server.socket}:/api/daemons/app%2Frepl/attach`, headers: {} },
    detachKey,
    input: t.input,
    output: t.output,
    onAttached: (pid) => {
      attachedPid = pid
    },
  })
  const client = await server.next()
  await until(() => attachedPid !== undefined)
  return { client, ended, attachedPid }
}

describe("attachSession", () => {
  it("sends the window size in the query, shows the output and sends keystrokes as binary frames", async () => {
    const server = await serve()
    const t = terminal(30, 100)
    const { client, ended, attachedPid } = await open(server, t)
    expect(attachedPid).toBe(42)
    expect(client.url).toBe("/api/daemons/app%2Frepl/attach?rows=30&cols=100")
    client.ws.send(Buffer.from(">>> "), { binary: true })
    await until(() => t.shown() === ">>> ")
    t.type("1+1\r")
    await until(() => client.frames.length > 0)
    expect(client.frames).toEqual([{ binary: true, data: "1+1\r" }])
    // Ctrl-C is a key like the others
    t.type("\u0003")
    await until(() => client.frames.length > 1)
    expect(client.frames[1]).toEqual({ binary: true, data: "\u0003" })
    client.ws.send(JSON.stringify({ _tag: "Exited", code: 3, signal: null }))
    client.ws.close(1000)
    expect(await ended).toEqual<AttachEnd>({ _tag: "Exited", code: 3, signal: null })
  })

  it("sends a Resize message when the terminal is resized", async () => {
    const server = await serve()
    const t = terminal()
    const { client, ended } = await open(server, t)
    Object.assign(t.output, { rows: 10, columns: 33 })
    t.output.emit("resize")
    await until(() => client.frames.length > 0)
    expect(client.frames[0]).toEqual({ binary: false, data: '{"_tag":"Resize","rows":10,"cols":33}' })
    client.ws.close(1000)
    expect((await ended)._tag).toBe("Lost")
  })

  it("detaches on the detach key, sending what was typed before it and nothing after", async () => {
    const server = await serve()
    const t = terminal()
    const { client, ended } = await open(server, t, 0x01)
    t.type(Buffer.from([0x61, 0x62, 0x01, 0x63]))
    expect(await ended).toEqual<AttachEnd>({ _tag: "Detached" })
    await until(() => client.ws.readyState === client.ws.CLOSED)
    expect(client.frames).toEqual([{ binary: true, data: "ab" }])
    // the modes a program may have left on are turned off: the cursor shown, bracketed paste off
    expect(t.shown()).toContain("\u001b[?25h")
    expect(t.shown()).toContain("\u001b[?2004l")
  })

  it("shows a marker for output the supervisor skipped, and skips messages of unknown kinds", async () => {
    const server = await serve()
    const t = terminal()
    const { client, ended } = await open(server, t)
    client.ws.send(JSON.stringify({ _tag: "Future", x: 1 }))
    client.ws.send(JSON.stringify({ _tag: "Dropped", bytes: 1234 }))
    await until(() => t.shown().includes("1234 bytes of output skipped"))
    client.ws.send(JSON.stringify({ _tag: "Exited", code: null, signal: "SIGTERM" }))
    client.ws.close(1000)
    expect(await ended).toEqual<AttachEnd>({ _tag: "Exited", code: null, signal: "SIGTERM" })
    expect(t.shown()).not.toContain("Future")
  })

  it("reports a refusal before the upgrade with the problem body's message", async () => {
    const server = await serve({
      status: 409,
      body: JSON.stringify({ _tag: "NoTerminal", message: "app/repl has no terminal: set pty = true" }),
    })
    const t = terminal()
    const end = await attachSession({
      address: { url: `ws+unix://${server.socket}:/api/daemons/app%2Frepl/attach`, headers: {} },
      detachKey: 0x1d,
      input: t.input,
      output: t.output,
    })
    expect(end).toEqual<AttachEnd>({
      _tag: "Refused",
      status: 409,
      message: "app/repl has no terminal: set pty = true",
    })
  })

  it("reports a supervisor that cannot be reached", async () => {
    const t = terminal()
    const end = await attachSession({
      address: { url: `ws+unix://${path.join(os.tmpdir(), `no-such-${process.pid}.sock`)}:/x`, headers: {} },
      detachKey: 0x1d,
      input: t.input,
      output: t.output,
    })
    expect(end._tag).toBe("Lost")
    expect(end._tag === "Lost" && end.message).toMatch(/ENOENT/)
  })
})
