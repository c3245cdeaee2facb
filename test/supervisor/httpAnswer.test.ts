import * as fs from "node:fs"
import * as https from "node:https"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { loadOrCreateCa } from "../../src/proxy/tls/ca.js"
import { newLeafKey, signServerCert } from "../../src/proxy/tls/leaf.js"
import { httpAnswer, statusOfHead } from "../../src/supervisor/readiness/http.js"

/** A TCP server on a free port that answers each connection with `onConnection`; closed with the scope. */
const tcpServer = (onConnection: (socket: net.Socket) => void) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<net.Server>((resolve) => {
          const server = net.createServer(onConnection)
          server.listen(0, "127.0.0.1", () => resolve(server))
        }),
    ),
    (server) => Effect.sync(() => server.close()),
  ).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))

const second = Duration.seconds(5)

describe("http check answers", () => {
  it("reads the status of a whole status line only", () => {
    expect(statusOfHead("HTTP/1.1 200 OK\r\n")).toBe(200)
    expect(statusOfHead("HTTP/1.0 503 Service Unavailable\r\nx")).toBe(503)
    expect(statusOfHead("HTTP/1.1 20")).toBe("partial")
    expect(statusOfHead("SSH-2.0-OpenSSH\r\n")).toBe("invalid")
  })

  it.scopedLive("says what it got: a status, even split in pieces; not HTTP; a close; a refusal", () =>
    Effect.gen(function* () {
      const split = yield* tcpServer((s) => {
        s.once("data", () => {
          s.write("HTT")
          setTimeout(() => s.end("P/1.1 503 Busy\r\n\r\n"), 20)
        })
      })
      const url = `http://127.0.0.1:${split}/health`
      expect(yield* httpAnswer(url, [], second)).toEqual({ ok: false, output: `GET ${url}: HTTP 503` })
      expect((yield* httpAnswer(url, [503], second)).ok).toBe(true)
      const garbage = yield* tcpServer((s) => s.end("hello\r\n"))
      expect((yield* httpAnswer(`http://127.0.0.1:${garbage}/`, [], second)).output).toBe(
        `GET http://127.0.0.1:${garbage}/: not an HTTP answer`,
      )
      const closing = yield* tcpServer((s) => s.end())
      expect((yield* httpAnswer(`http://127.0.0.1:${closing}/`, [], second)).output).toBe(
        `GET http://127.0.0.1:${closing}/: the connection closed without an answer`,
      )
      const silent = yield* tcpServer(() => {})
      expect((yield* httpAnswer(`http://127.0.0.1:${silent}/`, [], Duration.millis(200))).output).toBe(
        `GET http://127.0.0.1:${silent}/: no answer within 200ms`,
      )
      expect((yield* httpAnswer("http://127.0.0.1:1/", [], second)).output).toMatch(
        /^GET http:\/\/127\.0\.0\.1:1\/: connect ECONNREFUSED/,
      )
    }),
  )

  it.scopedLive(
    "over HTTPS (the https module loaded at the first such check): a status, a certificate it does not check",
    () =>
      Effect.gen(function* () {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sv-https-check-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
        const ca = loadOrCreateCa(dir)
        const key = newLeafKey()
        const cert = signServerCert(ca, key, ["127.0.0.1"])
        const port = yield* Effect.acquireRelease(
          Effect.promise(
            () =>
              new Promise<https.Server>((resolve) => {
                const server = https.createServer({ key: key.pem, cert }, (req, res) => {
                  res.writeHead(req.url === "/health" ? 204 : 404)
                  res.end()
                })
                server.listen(0, "127.0.0.1", () => resolve(server))
              }),
          ),
          (server) => Effect.sync(() => server.close()),
        ).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))
        expect(yield* httpAnswer(`https://127.0.0.1:${port}/health`, [], second)).toMatchObject({ ok: true })
        const missing = `https://127.0.0.1:${port}/missing`
        expect(yield* httpAnswer(missing, [], second)).toEqual({
          ok: false,
          output: `GET ${missing}: HTTP 404`,
        })
      }),
  )
})
