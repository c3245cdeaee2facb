/**
 * Request bodies are bounded (the built CLI's supervisor): the API reads at most 8 MiB of a body
 * (a larger declared length is a 413 before anything is read; the connection of a chunked body is
 * reset once it passes the limit), and the web login reads at most 64 KiB before authentication.
 * Each case sends part of its body, then waits for the answer without finishing: a server that
 * read bodies whole would never answer.
 */
import { request } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { apiGet, type DaemonSandbox, makeDaemonSandbox } from "../e2e/harness.js"

const T = 30_000
const KiB = 1024
const MiB = 1024 * KiB

let sb: DaemonSandbox
let webUrl = ""
beforeAll(() => {
  sb = makeDaemonSandbox()
  const dir = sb.dir("app")
  const r = sb.cli(["supervisor", "start", "--web-port", "0"], dir)
  expect(r.status, r.stderr).toBe(0)
  webUrl = (JSON.parse(sb.cli(["supervisor", "status", "--json"], dir).stdout) as { web_url: string }).web_url
}, T)
afterAll(() => sb.destroy())

interface Answer {
  readonly status: number
  readonly body: string
  /** Bytes of the body the client had written when the answer came. */
  readonly sent: number
}

/**
 * Sends `send` bytes of a body of spaces (with `headers`), then waits, without ending the request,
 * for the answer.
 */
const partial = (
  target: { socketPath: string } | { host: string; port: number },
  path: string,
  headers: Record<string, string>,
  send: number,
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    let sent = 0
    const req = request({ ...target, path, method: "POST", agent: false, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8").on("data", (d: string) => {
        body += d
      })
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body, sent })
        req.destroy()
      })
    })
    req.on("error", reject)
    req.setTimeout(20_000, () => reject(new Error(`no answer after ${sent} bytes`)))
    // small sends first: a server that answers and closes early must not turn the answer into EPIPE
    const chunk = Buffer.alloc(Math.min(send, MiB), 0x20)
    const pump = () => {
      while (sent < send) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
    }
    pump()
  })

const socket = () => ({ socketPath: join(sb.stateDir, "sock", "api.sock") })

describe("request body limits (e2e)", () => {
  it(
    "a declared length over 8 MiB is refused with a 413 before the body is read",
    async () => {
      const a = await partial(
        socket(),
        "/api/cli/logs",
        { "content-type": "application/json", "content-length": String(200 * MiB) },
        16 * KiB,
      )
      expect(a.status).toBe(413)
      expect(JSON.parse(a.body)).toMatchObject({
        _tag: "PayloadTooLarge",
        message: expect.stringContaining("larger than 8 MiB"),
      })
      expect(a.sent).toBeLessThan(200 * MiB)
    },
    T,
  )

  it(
    "a chunked body's connection is reset once it passes 8 MiB, and the supervisor goes on",
    async () => {
      const error = await partial(
        socket(),
        "/api/cli/logs",
        { "content-type": "application/json", "transfer-encoding": "chunked" },
        12 * MiB,
      ).then(
        (a) => `answered ${a.status}`,
        (e: NodeJS.ErrnoException) => e.code,
      )
      expect(["ECONNRESET", "EPIPE"]).toContain(error)
      expect(await apiGet(sb.stateDir, "/api/stats")).toMatchObject({ cpu_count: expect.any(Number) })
    },
    T,
  )

  it(
    "the web login refuses a declared body over 64 KiB with a 413, and resets a chunked one past it",
    async () => {
      const url = new URL(webUrl)
      const target = { host: url.hostname, port: Number(url.port) }
      const a = await partial(
        target,
        "/login",
        { host: url.host, "content-type": "application/json", "content-length": String(100 * MiB) },
        16 * KiB,
      )
      expect(a.status).toBe(413)
      expect(JSON.parse(a.body)).toMatchObject({ _tag: "PayloadTooLarge" })
      const chunked = await partial(
        target,
        "/login",
        { host: url.host, "content-type": "application/json", "transfer-encoding": "chunked" },
        2 * MiB,
      ).then(
        (r) => `answered ${r.status}`,
        (e: NodeJS.ErrnoException) => e.code,
      )
      expect(["ECONNRESET", "EPIPE"]).toContain(chunked)
      // a small wrong token is still a 401
      const small = await fetch(`${webUrl}/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: "nope" }),
      })
      expect(small.status).toBe(401)
    },
    T,
  )
})
