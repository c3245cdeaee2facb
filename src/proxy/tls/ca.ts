import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Data } from "effect"
import forge from "node-forge"

/**
 * The proxy's local certificate authority: created once under `<state dir>/proxy/` and reused.
 * Keys come from Node's native crypto (fast); node-forge builds and signs the X.509 certificates.
 */

export class CaError extends Data.TaggedError("CaError")<{
  readonly path: string
  readonly message: string
}> {}

export interface CaPaths {
  readonly dir: string
  readonly cert: string
  readonly key: string
}

export const caPaths = (stateDir: string): CaPaths => {
  const dir = nodePath.join(stateDir, "proxy")
  return { dir, cert: nodePath.join(dir, "ca.pem"), key: nodePath.join(dir, "ca-key.pem") }
}

export interface LocalCa {
  readonly paths: CaPaths
  readonly cert: forge.pki.Certificate
  readonly key: forge.pki.rsa.PrivateKey
  readonly certPem: string
  /** "created" on first use, "loaded" when reused, "replaced" when the files were unusable. */
  readonly origin: "created" | "loaded" | "replaced"
  /** Why the previous files were replaced (origin "replaced"). */
  readonly replacedBecause?: string
}

const DAY_MS = 24 * 60 * 60 * 1000
/** The CA lives ~10 years; leaves 397 days (browsers refuse server certificates over 398). */
export const CA_DAYS = 3650
export const LEAF_DAYS = 397

/** An RSA 2048 key pair from Node's crypto, converted to forge's form. */
export const newRsaKey = (): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey } => {
  const pair = crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  })
  return {
    privateKey: forge.pki.privateKeyFromPem(pair.privateKey),
    publicKey: forge.pki.publicKeyFromPem(pair.publicKey) as forge.pki.rsa.PublicKey,
  }
}

/**
 * A random positive serial number (hex, 16 bytes). Its first byte is 0x40-0x7f: below 0x80
 * keeps it positive, and never 0x00: forge writes a serial that starts with two zero bytes as a
 * DER integer OpenSSL refuses ("illegal padding"), which made one CA or leaf in 32768 unreadable.
 */
export const randomSerial = (): string => {
  const bytes = crypto.randomBytes(16)
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40
  return bytes.toString("hex")
}

const caName = (): string => {
  let user = "user"
  try {
    user = os.userInfo().username
  } catch {
    // no passwd entry (containers): keep "user"
  }
  return `supervisor local CA (${user}@${os.hostname()})`
}

const createCaCert = (): { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } => {
  const { privateKey, publicKey } = newRsaKey()
  const cert = forge.pki.createCertificate()
  cert.publicKey = publicKey
  cert.serialNumber = randomSerial()
  const now = Date.now()
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000)
  cert.validity.notAfter = new Date(now + CA_DAYS * DAY_MS)
  const attrs = [
    { name: "commonName", value: caName() },
    { name: "organizationName", value: "supervisor" },
  ]
  cert.setSubject(attrs)
  cert.setIssuer(attrs)
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ])
  cert.sign(privateKey, forge.md.sha256.create())
  return { cert, key: privateKey }
}

/** Why the files at `paths` cannot serve as the CA, or the CA they hold. */
const readCa = (
  paths: CaPaths,
):
  | { ok: true; cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey; certPem: string }
  | { ok: false; why: string } => {
  let certPem: string
  let keyPem: string
  try {
    certPem = fs.readFileSync(paths.cert, "utf8")
    keyPem = fs.readFileSync(paths.key, "utf8")
  } catch (e) {
    return { ok: false, why: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})` }
  }
  try {
    const cert = forge.pki.certificateFromPem(certPem)
    const key = forge.pki.privateKeyFromPem(keyPem)
    const pub = cert.publicKey as forge.pki.rsa.PublicKey
    if (pub.n.compareTo(key.n) !== 0) return { ok: false, why: "its key does not match its certificate" }
    if (cert.validity.notAfter.getTime() < Date.now()) return { ok: false, why: "it has expired" }
    return { ok: true, cert, key, certPem }
  } catch (e) {
    return {
      ok: false,
      why: `is not a valid PEM certificate and key (${e instanceof Error ? e.message : String(e)})`,
    }
  }
}

/** Writes `data` to `path` through a temporary file renamed over it, with `mode`. */
const writeAtomic = (path: string, data: string, mode: number) => {
  const tmp = `${path}.${process.pid}.tmp`
  fs.writeFileSync(tmp, data, { mode })
  fs.chmodSync(tmp, mode)
  fs.renameSync(tmp, path)
}

/**
 * The CA of `stateDir`: loaded when `ca.pem` and `ca-key.pem` are there and usable, else
 * generated (the directory 0700, the key 0600, the certificate 0644) under a lock file, so that
 * processes starting together (the supervisor, `proxy trust`) make one CA. Throws a CaError when
 * the directory cannot be written.
 */
export const loadOrCreateCa = (stateDir: string): LocalCa => {
  const paths = caPaths(stateDir)
  const loaded = load(paths)
  if (loaded.ca !== undefined) return loaded.ca
  return withLock(paths, () => {
    // another process may have made it while this one waited
    const again = load(paths)
    if (again.ca !== undefined) return again.ca
    const made = create(paths)
    return again.why === undefined
      ? { ...made, origin: "created" }
      : { ...made, origin: "replaced", replacedBecause: `${paths.cert} ${again.why}` }
  })
}

/**
 * Whether the CA of `stateDir` is there and usable, read only: never created nor replaced
 * (`proxy trust` trusts only a CA that exists). `why` it cannot serve when its files are unusable.
 */
export const inspectCa = (stateDir: string): "missing" | "usable" | { readonly why: string } => {
  const loaded = load(caPaths(stateDir))
  return loaded.ca !== undefined ? "usable" : loaded.why === undefined ? "missing" : { why: loaded.why }
}

/** The CA on disk; `why` it cannot serve when its files are there but unusable. */
const load = (paths: CaPaths): { ca?: LocalCa; why?: string } => {
  if (!fs.existsSync(paths.cert) && !fs.existsSync(paths.key)) return {}
  const read = readCa(paths)
  return read.ok
    ? { ca: { paths, cert: read.cert, key: read.key, certPem: read.certPem, origin: "loaded" } }
    : { why: read.why }
}

const LOCK_WAIT_MS = 15_000
/** A lock older than this was left by a process that died while creating the CA. */
const LOCK_STALE_MS = 60_000

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const withLock = <A>(paths: CaPaths, f: () => A): A => {
  const lock = nodePath.join(paths.dir, "ca.lock")
  const deadline = Date.now() + LOCK_WAIT_MS
  try {
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 })
    for (;;) {
      try {
        fs.writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 })
        break
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
        const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
        if (age > LOCK_STALE_MS) fs.rmSync(lock, { force: true })
        else if (Date.now() > deadline)
          throw new CaError({
            path: lock,
            message: `${lock} has been held for ${Math.round(age / 1000)}s by a process creating the local CA; remove it if no supervisor is running`,
          })
        else sleep(50)
      }
    }
  } catch (e) {
    if (e instanceof CaError) throw e
    throw new CaError({
      path: paths.dir,
      message: `cannot write the local CA in ${paths.dir}: ${e instanceof Error ? e.message : String(e)}; check that the state directory is writable (SUPERVISOR_STATE_DIR)`,
    })
  }
  try {
    return f()
  } finally {
    fs.rmSync(lock, { force: true })
  }
}

const create = (paths: CaPaths): Omit<LocalCa, "origin"> => {
  const { cert, key } = createCaCert()
  const certPem = forge.pki.certificateToPem(cert)
  try {
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 })
    fs.chmodSync(paths.dir, 0o700)
    // the key first: a certificate on disk always has its key
    writeAtomic(paths.key, forge.pki.privateKeyToPem(key), 0o600)
    writeAtomic(paths.cert, certPem, 0o644)
  } catch (e) {
    throw new CaError({
      path: paths.dir,
      message: `cannot write the local CA in ${paths.dir}: ${e instanceof Error ? e.message : String(e)}; check that the state directory is writable (SUPERVISOR_STATE_DIR)`,
    })
  }
  return { paths, cert, key, certPem }
}

/** A one-line note for the daemon log when the CA was created or replaced, else undefined. */
export const caNote = (ca: LocalCa): string | undefined =>
  ca.origin === "created"
    ? `created the local CA ${ca.paths.cert} (trust it with \`supervisor proxy trust\`)`
    : ca.origin === "replaced"
      ? `replaced the local CA: ${ca.replacedBecause}; trust the new ${ca.paths.cert} with \`supervisor proxy trust\``
      : undefined
