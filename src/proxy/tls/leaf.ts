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
  const own = tld.toLowerCase()
  /** The certificates signed, by name; a TLS context is made of one only where Node terminates TLS. */
  const pems = new Map<string, Promise<string>>()
  const contexts = new Map<string, Promise<tls.SecureContext>>()
  let count = 0
  const fallbackPem = { key: key.pem, cert: signLeaf(ca, key, own) }
  const fallback = tls.createSecureContext(fallbackPem)
  /** The certificate of a signable name other than the tld's, signed at its first use. */
  const signed = (name: string): Promise<string> => {
    const known = pems.get(name)
    if (known !== undefined) return known
    // signing is synchronous; deferring it lets the handshakes that arrive meanwhile share it
    const pending = new Promise<string>((resolve, reject) =>
      setImmediate(() => {
        try {
          count++
          resolve(signLeaf(ca, key, name))
        } catch (e) {
          pems.delete(name)
          contexts.delete(name)
          reject(e)
        }
      }),
    )
    pems.set(name, pending)
    // a Map iterates in insertion order: the first name is the oldest
    if (pems.size > limit) {
      const oldest = pems.keys().next().value!
      pems.delete(oldest)
      contexts.delete(oldest)
    }
    return pending
  }
  const ownName = (raw: string): string | undefined => {
    const name = raw.toLowerCase()
    return signable(name, tld) && name !== own ? name : undefined
  }
  const context = (raw: string): Promise<tls.SecureContext> => {
    const name = ownName(raw)
    if (name === undefined) return Promise.resolve(fallback)
    const known = contexts.get(name)
    if (known !== undefined) return known
    const made = signed(name).then((cert) => tls.createSecureContext({ key: key.pem, cert }))
    contexts.set(name, made)
    return made
  }
  const certPem = (raw: string): Promise<string | undefined> => {
    const name = ownName(raw)
    return name === undefined ? Promise.resolve(undefined) : signed(name)
  }
  return { context, fallback, fallbackPem, signed: () => count, keyPem: key.pem, certPem }
}
