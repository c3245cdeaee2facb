import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import forge from "node-forge"
import { afterEach, describe, expect, it } from "vitest"
import { caPaths, loadOrCreateCa, randomSerial } from "../../../src/proxy/tls/ca.js"
import { leafCache, newLeafKey, signable, signLeaf } from "../../../src/proxy/tls/leaf.js"

const dirs: Array<string> = []
const tempState = () => {
  const d = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-ca-"))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const mode = (p: string) => fs.statSync(p).mode & 0o777
const DAY = 24 * 60 * 60 * 1000

describe("local CA", () => {
  it("is created on first use: 0700 directory, 0600 key, 0644 certificate, a CA for ~10 years", () => {
    const state = tempState()
    const ca = loadOrCreateCa(state)
    const paths = caPaths(state)
    expect(ca.origin).toBe("created")
    expect(mode(paths.dir)).toBe(0o700)
    expect(mode(paths.key)).toBe(0o600)
    expect(mode(paths.cert)).toBe(0o644)
    const x = new crypto.X509Certificate(fs.readFileSync(paths.cert))
    expect(x.ca).toBe(true)
    expect(x.subject).toMatch(/CN=supervisor local CA \(.+@.+\)/)
    expect(x.checkPrivateKey(crypto.createPrivateKey(fs.readFileSync(paths.key)))).toBe(true)
    const years = (Date.parse(x.validTo) - Date.now()) / (365 * DAY)
    expect(years).toBeGreaterThan(9.9)
    expect(years).toBeLessThan(10.1)
    expect(x.verify(x.publicKey)).toBe(true)
    const parsed = forge.pki.certificateFromPem(fs.readFileSync(paths.cert, "utf8"))
    expect(parsed.getExtension("basicConstraints")).toMatchObject({ cA: true, critical: true })
    expect(parsed.getExtension("keyUsage")).toMatchObject({
      keyCertSign: true,
      cRLSign: true,
      critical: true,
    })
  })

  it("is loaded, never regenerated, when its files are there", () => {
    const state = tempState()
    const first = loadOrCreateCa(state)
    const before = fs.readFileSync(first.paths.cert, "utf8")
    const again = loadOrCreateCa(state)
    expect(again.origin).toBe("loaded")
    expect(fs.readFileSync(first.paths.cert, "utf8")).toBe(before)
    expect(again.certPem).toBe(before)
  })

  it("is replaced, saying why, when its certificate is corrupt or its key does not match", () => {
    const state = tempState()
    const first = loadOrCreateCa(state)
    fs.writeFileSync(first.paths.cert, "not a certificate\n")
    const second = loadOrCreateCa(state)
    expect(second.origin).toBe("replaced")
    expect(second.replacedBecause).toMatch(/ca\.pem is not a valid PEM/)
    expect(new crypto.X509Certificate(fs.readFileSync(first.paths.cert)).ca).toBe(true)

    fs.writeFileSync(
      first.paths.key,
      crypto
        .generateKeyPairSync("rsa", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs1", format: "pem" }),
    )
    const third = loadOrCreateCa(state)
    expect(third.origin).toBe("replaced")
    expect(third.replacedBecause).toMatch(/key does not match/)

    fs.rmSync(first.paths.key)
    const fourth = loadOrCreateCa(state)
    expect(fourth.origin).toBe("replaced")
    expect(fourth.replacedBecause).toMatch(/cannot be read \(ENOENT\)/)
    expect(mode(first.paths.key)).toBe(0o600)
  })
})

describe("the CA's lock", () => {
  it("is released after creating; a lock left by a dead process (over a minute old) is taken over", () => {
    const state = tempState()
    const paths = caPaths(state)
    fs.mkdirSync(paths.dir, { recursive: true })
    const lock = nodePath.join(paths.dir, "ca.lock")
    fs.writeFileSync(lock, "99999999")
    const old = new Date(Date.now() - 2 * 60 * 1000)
    fs.utimesSync(lock, old, old)
    expect(loadOrCreateCa(state).origin).toBe("created")
    expect(fs.existsSync(lock)).toBe(false)
  })
})

describe("leaf certificates", () => {
  it("name exactly the host (SAN), are issued by the CA, serverAuth, valid at most 397 days", () => {
    const ca = loadOrCreateCa(tempState())
    const pem = signLeaf(ca, newLeafKey(), "shop.localhost")
    const leaf = new crypto.X509Certificate(pem)
    const root = new crypto.X509Certificate(ca.certPem)
    expect(leaf.subjectAltName).toBe("DNS:shop.localhost")
    expect(leaf.checkHost("shop.localhost")).toBe("shop.localhost")
    expect(leaf.checkHost("other.localhost")).toBeUndefined()
    expect(leaf.issuer).toBe(root.subject)
    expect(leaf.checkIssued(root)).toBe(true)
    expect(leaf.verify(root.publicKey)).toBe(true)
    expect(leaf.ca).toBe(false)
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"])
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / DAY
    expect(days).toBeLessThanOrEqual(397)
  })

  it("are signed for the tld and names under it only", () => {
    expect(signable("shop.localhost", "localhost")).toBe(true)
    expect(signable("a.b.localhost", "localhost")).toBe(true)
    expect(signable("localhost", "localhost")).toBe(true)
    expect(signable("Shop.LOCALHOST", "localhost")).toBe(true)
    expect(signable("example.com", "localhost")).toBe(false)
    expect(signable("evillocalhost", "localhost")).toBe(false)
    expect(signable("a..localhost", "localhost")).toBe(false)
    expect(signable("*.localhost", "localhost")).toBe(false)
  })

  it("are cached per name: concurrent requests share one signing; other names get the fallback", async () => {
    const cache = leafCache(loadOrCreateCa(tempState()), "localhost")
    const base = cache.signed()
    const [a1, a2, a3] = await Promise.all([
      cache.context("a.localhost"),
      cache.context("a.localhost"),
      cache.context("A.localhost"),
    ])
    expect(a1).toBe(a2)
    expect(a1).toBe(a3)
    expect(cache.signed()).toBe(base + 1)
    const b = await cache.context("b.localhost")
    expect(b).not.toBe(a1)
    expect(cache.signed()).toBe(base + 2)
    expect(await cache.context("a.localhost")).toBe(a1)
    expect(await cache.context("example.com")).toBe(cache.fallback)
    expect(cache.signed()).toBe(base + 2)
    expect(new crypto.X509Certificate(cache.fallbackPem.cert).subjectAltName).toBe("DNS:localhost")
  })

  it("keep at most `limit` names: the oldest is forgotten, and signed again when asked", async () => {
    const cache = leafCache(loadOrCreateCa(tempState()), "localhost", 2)
    const a = await cache.context("a.localhost")
    await cache.context("b.localhost")
    expect(await cache.context("a.localhost")).toBe(a)
    await cache.context("c.localhost")
    const signed = cache.signed()
    expect(await cache.context("a.localhost")).not.toBe(a)
    expect(cache.signed()).toBe(signed + 1)
  })
})

describe("serial numbers", () => {
  /** A self-signed certificate with `serial`, as forge writes it, read back by Node (OpenSSL). */
  const readableWith = (serial: string): boolean => {
    const pair = crypto.generateKeyPairSync("rsa", { modulusLength: 1024 })
    const key = forge.pki.privateKeyFromPem(
      pair.privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    )
    const cert = forge.pki.createCertificate()
    cert.publicKey = forge.pki.publicKeyFromPem(
      pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
    )
    cert.serialNumber = serial
    cert.validity.notBefore = new Date()
    cert.validity.notAfter = new Date(Date.now() + DAY)
    cert.setSubject([{ name: "commonName", value: "serial" }])
    cert.setIssuer([{ name: "commonName", value: "serial" }])
    cert.sign(key, forge.md.sha256.create())
    try {
      new crypto.X509Certificate(forge.pki.certificateToPem(cert))
      return true
    } catch {
      return false
    }
  }

  it("start with a byte of 0x40-0x7f: positive, and never the 0x00 OpenSSL refuses as padding", () => {
    // the cause: a serial that starts with two zero bytes makes a certificate OpenSSL cannot read
    expect(readableWith(`0000${"5a".repeat(14)}`)).toBe(false)
    for (let i = 0; i < 2000; i++) expect(randomSerial()).toMatch(/^[4-7][0-9a-f]{31}$/)
    expect(readableWith(randomSerial())).toBe(true)
  })
})
