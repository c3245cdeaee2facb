/**
 * The attach WebSocket (`GET /api/daemons/{id}/attach`, docs/attach.md) against a real supervisor:
 * over the Unix socket a REPL answers what is typed, the window size reaches it, the recent
 * screen comes first, and the end of its run ends the session with its exit code. Over TCP the
 * token, the session rules and the Origin check apply; a daemon without a terminal is a 409.
 */
import { readFileSync } from "node:fs"
import { release } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { type DaemonSandbox, freePort, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox
let proj: string
let port: number
let token: string
const cli = (...args: Array<string>) => sb.cliAsync(args, proj)
const route = (id: string, query = "") => `/api/daemons/${encodeURIComponent(id)}/attach${query}`

/** A client of the route: what it received, as text, and its control messages. */
const connect = (url: string, headers: Record<string, string> = {}) => {
  const ws = new WebSocket(url, { headers })
  const got = {
    screen: "",
    control: [] as Array<Record<string, unknown>>,
    closed: undefined as number | undefined,
  }
  ws.on("message", (data, binary) => {
    if (binary) got.screen += data.toString()
    else got.control.push(JSON.parse(data.toString()))
  })
  ws.on("close", (code) => {
    got.closed = code
  })
  const opened = new Promise<void>((ok, fail) => {
    ws.once("open", () => ok())
    ws.once("error", fail)
  })
  return { ws, got, opened }
}

/** The status and body of a refused upgrade. */
const refusal = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((ok, fail) => {
    const ws = new WebSocket(url, { headers })
    ws.on("open", () => fail(new Error("the upgrade was accepted")))
    ws.on("error", () => undefined)
    ws.on("unexpected-response", (_req, res) => {
      let body = ""
      res.on("data", (d: Buffer) => {
        body += d
      })
      res.on("end", () => ok({ status: res.statusCode ?? 0, body }))
    })
  })

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "app",
    `
[daemons.repl]
run = "exec python3 -i -q"
pty = true
ready_output = ">>>"

[daemons.plain]
run = "exec sleep 300"
ready_delay = 0.1
`,
  )
  port = await freePort()
  expect((await cli("supervisor", "start", "--web-port", String(port))).status).toBe(0)
  token = (await cli("supervisor", "token")).stdout.trim()
  expect((await cli("start", "repl", "plain")).status).toBe(0)
}, T)
afterAll(() => sb.destroy(), T)

const unix = (path: string) => `ws+unix://${join(sb.stateDir, "sock", "api.sock")}:${path}`

describe("the attach WebSocket", () => {
  it(
    "over the Unix socket: Attached, the screen, answers to what is typed, the window size, Exited with the code",
    async () => {
      const a = connect(unix(route("app/repl", "?rows=12&cols=51")))
      await a.opened
      await waitFor("Attached", () => a.got.control.find((m) => m._tag === "Attached"))
      expect(a.got.control[0]).toMatchObject({ _tag: "Attached", id: "app/repl" })
      a.ws.send(Buffer.from("6*7\r"))
      await waitFor("the answer", () => a.got.screen.includes("42"))
      a.ws.send(Buffer.from("import os; os.get_terminal_size()\r"))
      await waitFor("the size", () => a.got.screen.includes("columns=51, lines=12"))
      a.ws.send(JSON.stringify({ _tag: "Resize", rows: 30, cols: 99 }))
      a.ws.send(Buffer.from("os.get_terminal_size()\r"))
      await waitFor("the new size", () => a.got.screen.includes("columns=99, lines=30"))
      a.ws.close()
      // attached again: the earlier screen first
      const b = connect(unix(route("app/repl")))
      await b.opened
      await waitFor("the earlier screen", () => b.got.screen.includes("columns=99, lines=30"))
      b.ws.send(Buffer.from("exit(3)\r"))
      await waitFor("the session's end", () => b.got.closed)
      expect(b.got.closed).toBe(1000)
      expect(b.got.control.at(-1)).toEqual({ _tag: "Exited", code: 3, signal: null })
    },
    T,
  )

  it(
    "refuses a daemon without a terminal (409, with the fix), one not running (409) and an unknown one (404)",
    async () => {
      const plain = await refusal(unix(route("app/plain")))
      expect(plain.status).toBe(409)
      expect(JSON.parse(plain.body)).toMatchObject({ _tag: "NoTerminal" })
      expect(plain.body).toContain("pty = true")
      const gone = await refusal(unix(route("app/repl"))) // it exited in the test above
      expect(gone.status).toBe(409)
      expect(JSON.parse(gone.body)).toMatchObject({ _tag: "NotRunning" })
      expect((await refusal(unix(route("app/nope")))).status).toBe(404)
    },
    T,
  )

  it(
    "a burst of keystrokes with a window size among them reaches the daemon in the order sent",
    async () => {
      expect((await cli("start", "repl")).status).toBe(0)
      const a = connect(unix(route("app/repl")))
      await a.opened
      a.ws.send(Buffer.from("n = 0\r"))
      for (let i = 1; i <= 20; i++) {
        a.ws.send(Buffer.from(`n = n * 10 + ${i % 10}\r`))
        if (i === 10) a.ws.send(JSON.stringify({ _tag: "Resize", rows: 20, cols: 70 }))
      }
      a.ws.close()
      await waitFor("the close", () => a.got.closed)
      const b = connect(unix(route("app/repl")))
      await b.opened
      b.ws.send(Buffer.from("print('n=%d' % n)\r"))
      b.ws.send(Buffer.from("import os; print('cols=%d' % os.get_terminal_size().columns)\r"))
      await waitFor("the digits, in order", () => b.got.screen.includes("n=12345678901234567890"))
      await waitFor("the size sent among them", () => b.got.screen.includes("cols=70"))
      b.ws.close()
    },
    T,
  )

  it(
    "the supervisor's main thread asks for a 0.1 ms time slice, keeping its policy (docs/attach.md)",
    async () => {
      const pid = JSON.parse((await cli("supervisor", "status", "--json")).stdout).pid
      const sched = readFileSync(`/proc/${pid}/sched`, "utf8")
      const [major = 0, minor = 0] = release().split(".").map(Number)
      // custom slices are Linux 6.12's (EEVDF); older kernels ignore the request
      if (major > 6 || (major === 6 && minor >= 12)) expect(sched).toMatch(/^se\.slice\s*:\s*100000$/m)
      expect(sched).toMatch(/^policy\s*:\s*0$/m)
    },
    T,
  )

  it(
    "over TCP: the token is needed, a foreign Origin is refused, the listener's own is let in",
    async () => {
      expect((await cli("start", "repl")).status).toBe(0)
      const url = `ws://127.0.0.1:${port}${route("app/repl")}`
      const none = await refusal(url)
      expect(none.status).toBe(401)
      const foreign = await refusal(url, { "x-supervisor-token": token, origin: "http://evil.example" })
      expect(foreign.status).toBe(403)
      expect(JSON.parse(foreign.body)).toMatchObject({ _tag: "OriginNotAllowed" })
      const sameSiteOtherPort = await refusal(url, {
        "x-supervisor-token": token,
        origin: "http://127.0.0.1:1",
      })
      expect(sameSiteOtherPort.status).toBe(403)
      const own = connect(url, { "x-supervisor-token": token, origin: `http://127.0.0.1:${port}` })
      await own.opened
      own.ws.send(Buffer.from("'via' + 'tcp'\r"))
      await waitFor("the answer over TCP", () => own.got.screen.includes("'viatcp'"))
      own.ws.close()
    },
    T,
  )
})
