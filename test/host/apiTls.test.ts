import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Either, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Settings } from "../../src/domain/Settings.js"
import { certificateNames, listenerTls } from "../../src/host/apiTls.js"
import { listenerPlans } from "../../src/host/listeners.js"
import { listen } from "../../src/host/tcp.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-apitls-"))
  dirs.push(d)
  return d
}

/** GET `url`, verifying against `ca` (PEM) when given: the status, or the TLS error's code. */
const get = (url: string, ca: string | undefined, servername?: string) =>
  new Promise<{ status?: number; code?: string }>((resolve) => {
    const req = https.get(
      url,
      { ...(ca === undefined ? {} : { ca }), ...(servername ? { servername } : {}) },
      (res) => {
        res.resume()
        resolve({ status: res.statusCode ?? 0 })
      },
    )
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ code: e.code ?? e.message }))
  })

describe("the API listener over HTTPS (settings.api.tls)", () => {
  it("serves a certificate of the local CA naming the bind address, which verifies with the CA file", async () => {
    const stateDir = tempDir()
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const tls = yield* listenerTls(stateDir, "127.0.0.2")
          expect(tls.caFile).toBe(nodePath.join(stateDir, "proxy", "ca.pem"))
          const bound = yield* listen((_req, res) => res.end("ok"), "127.0.0.2", 0, tls)
          expect(bound.url).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/)
          const ca = fs.readFileSync(tls.caFile, "utf8")
          return {
            withCa: yield* Effect.promise(() => get(`${bound.url}/`, ca)),
            byHostName: yield* Effect.promise(() => get(`${bound.url}/`, ca, os.hostname())),
            withoutCa: yield* Effect.promise(() => get(`${bound.url}/`, undefined)),
            otherCa: yield* Effect.promise(async () =>
              get(`${bound.url}/`, fs.readFileSync(await listenerCaOf(tempDir()), "utf8")),
            ),
          }
        }),
      ),
    )
    expect(result.withCa).toEqual({ status: 200 })
    expect(result.byHostName).toEqual({ status: 200 })
    expect(result.withoutCa.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/)
    expect(result.otherCa.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/)
  })

  it("names the address, the host name and loopback; every local address for a wildcard bind", () => {
    expect(certificateNames("10.1.2.3")).toEqual(["10.1.2.3", os.hostname(), "localhost", "127.0.0.1", "::1"])
    const wildcard = certificateNames("0.0.0.0")
    for (const list of Object.values(os.networkInterfaces()))
      for (const i of list ?? []) expect(wildcard).toContain(i.address.replace(/%.*$/, ""))
  })

  it("may listen on a non-loopback address without allow_non_loopback; plain HTTP may not", () => {
    const plans = (api: Record<string, unknown>) =>
      Effect.runSync(
        Effect.either(
          listenerPlans(Schema.decodeUnknownSync(Settings)({ api: { auto_start: true, ...api } }), {}),
        ),
      )
    const tls = plans({ bind_address: "0.0.0.0", tls: true })
    expect(Either.getOrThrow(tls).map((p) => [p.kind, p.address, p.tls])).toEqual([["api", "0.0.0.0", true]])
    const plain = plans({ bind_address: "0.0.0.0" })
    expect(Either.isLeft(plain) && plain.left.message).toContain("settings.api.tls = true")
  })
})

/** The CA file of another state directory (another supervisor's CA). */
const listenerCaOf = async (stateDir: string) =>
  (await Effect.runPromise(listenerTls(stateDir, "127.0.0.1"))).caFile
