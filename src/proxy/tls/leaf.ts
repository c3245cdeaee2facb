import * as net from "node:net"
import * as tls from "node:tls"
import forge from "node-forge"
import { LEAF_DAYS, type LocalCa, newRsaKey, randomSerial } from "./ca.js"

const DAY_MS = 24 * 60 * 60 * 1000

/** A DNS name the CA may sign: `tld` itself or a name under it, in letters, digits, `-` and `.`. */
export const signable = (name: string, tld: string): boolean => {
  const n = name.toLowerCase()
  const t = tld.toLowerCase()
  return (
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(n) &&
    (n === t || n.endsWith(`.${t}`))
  )
}

export interface LeafKey {
  readonly privateKey: forge.pki.rsa.PrivateKey
  readonly publicKey: forge.pki.rsa.PublicKey
  readonly pem: string
}

/** One key shared by every leaf of a process: a handshake for a new name signs, never generates. */
export const newLeafKey = (): LeafKey => {
  const pair = newRsaKey()
  return { ...pair, pem: forge.pki.privateKeyToPem(pair.privateKey) }
}

/** A server certificate for exactly `name` (its only SAN), signed by `ca`, as PEM. */
export const signLeaf = (ca: LocalCa, key: LeafKey, name: string, now = Date.now()): string =>
  signServerCert(ca, key, [name], now)

/** A subject alternative name: an IP address (type 7) or a DNS name (type 2). */
const altName = (name: string) => (net.isIP(name) !== 0 ? { type: 7, ip: name } : { type: 2, value: name })

/** A server certificate for `names` (DNS names or IP addresses; the first is its subject), signed by `ca`, as PEM. */
export const signServerCert = (
  ca: LocalCa,
  key: LeafKey,
  names: ReadonlyArray<string>,
  now = Date.now(),
): string => {
  const [name = "localhost"] = names
  const cert = forge.pki.createCertificate()
  cert.publicKey = key.publicKey
  cert.serialNumber = randomSerial()
  // an hour back for clocks that differ; the whole span stays within LEAF_DAYS
  const notBefore = now - 60 * 60 * 1000
  cert.validity.notBefore = new Date(notBefore)
  cert.validity.notAfter = new Date(notBefore + LEAF_DAYS * DAY_MS)
  cert.setSubject([{ name: "commonName", value: name }])
  cert.setIssuer(ca.cert.subject.attributes)
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: names.map(altName) },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes() },
  ])
  cert.sign(ca.key, forge.md.sha256.create())
  return forge.pki.certificateToPem(cert)
}

export interface LeafCache {
  /** The TLS context of `name`: signed on first use, then from memory; concurrent callers share one signing. */
  readonly context: (name: string) => Promise<tls.SecureContext>
  /** The context served to a handshake without SNI, or for a name the CA does not sign. */
  readonly fallback: tls.SecureContext
  /** The fallback's key and certificate (PEM), the server's default identity. */
  readonly fallbackPem: { readonly key: string; readonly cert: string }
  /** How many certificates were signed (for tests and the log). */
  readonly signed: () => number
  /** The key of every leaf (PEM). */
  readonly keyPem: string
  /** The certificate of `name` (PEM), signed on first use; undefined for the fallback's names. */
  readonly certPem: (name: string) => Promise<string | undefined>
}

/** Names kept in memory at most; past it the least recently signed is forgotten (signed again if asked). */
export const MAX_CACHED = 1000

/**
 * Leaf certificates of `ca` per SNI name, cached in memory for the life of the process. Names
 * outside `tld` get the fallback (the certificate of `tld` itself): the CA signs nothing else.
 */
export const leafCache = (ca: LocalCa, tld: string, limit = MAX_CACHED): LeafCache => {
  const key = newLeafKey()
  const contexts = new Map<string, Promise<tls.SecureContext>>()
  const pems = new Map<string, string>()
  let count = 0
  const make = (name: string): tls.SecureContext => {
    count++
    return tls.createSecureContext({ key: key.pem, cert: signLeaf(ca, key, name) })
  }
  const fallbackPem = { key: key.pem, cert: signLeaf(ca, key, tld.toLowerCase()) }
  const fallback = tls.createSecureContext(fallbackPem)
  contexts.set(tld.toLowerCase(), Promise.resolve(fallback))
  const context = (raw: string): Promise<tls.SecureContext> => {
    const name = raw.toLowerCase()
    if (!signable(name, tld)) return Promise.resolve(fallback)
    const known = contexts.get(name)
    if (known !== undefined) return known
    // signing is synchronous; deferring it lets the handshakes that arrive meanwhile share it
    const pending = new Promise<tls.SecureContext>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(make(name))
        } catch (e) {
          contexts.delete(name)
          reject(e)
        }
      }),
    )
    contexts.set(name, pending)
    // a Map iterates in insertion order: the first name after the tld's is the oldest
    if (contexts.size > limit + 1) {
      const oldest = [...contexts.keys()].find((n) => n !== tld.toLowerCase())
      if (oldest !== undefined) contexts.delete(oldest)
    }
    return pending
  }
  const certPem = (raw: string): Promise<string | undefined> => {
    const name = raw.toLowerCase()
    if (!signable(name, tld) || name === tld.toLowerCase()) return Promise.resolve(undefined)
    const known = pems.get(name)
    if (known !== undefined) return Promise.resolve(known)
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          let pem = pems.get(name)
          if (pem === undefined) {
            count++
            pem = signLeaf(ca, key, name)
            if (pems.size >= limit) pems.delete(pems.keys().next().value!)
            pems.set(name, pem)
          }
          resolve(pem)
        } catch (e) {
          reject(e)
        }
      }),
    )
  }
  return { context, fallback, fallbackPem, signed: () => count, keyPem: key.pem, certPem }
}
