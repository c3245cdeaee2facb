import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"

/**
 * The API token of TCP listeners. Unless `api.token` (or `SUPERVISOR_API_TOKEN`) sets one, a
 * random 256-bit token is generated at first use and kept in `<state dir>/api-token`, mode
 * 0600, so that only the owner of the state directory can read it. `supervisor supervisor token`
 * prints it.
 */

export const tokenFile = (stateDir: string) => nodePath.join(stateDir, "api-token")

/** The configured token, or the stored one, created (atomically, 0600) when missing. */
export const loadOrCreateToken = (stateDir: string, configured: string | undefined): string => {
  if (configured !== undefined && configured !== "") return configured
  const file = tokenFile(stateDir)
  try {
    const stored = fs.readFileSync(file, "utf8").trim()
    if (stored !== "") return stored
  } catch {}
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 })
  const token = crypto.randomBytes(32).toString("hex")
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, `${token}\n`, { mode: 0o600 })
  try {
    // `link` fails when another process created the file first: then its token wins.
    fs.linkSync(tmp, file)
  } catch {
  } finally {
    fs.rmSync(tmp, { force: true })
  }
  return fs.readFileSync(file, "utf8").trim()
}

/** Constant-time comparison (of SHA-256 digests, so that lengths leak nothing either). */
export const sameToken = (given: string, expected: string): boolean => {
  const a = crypto.createHash("sha256").update(given).digest()
  const b = crypto.createHash("sha256").update(expected).digest()
  return crypto.timingSafeEqual(a, b)
}

/** A random one-time code or session ID (URL-safe). */
export const randomId = (bytes = 24): string => crypto.randomBytes(bytes).toString("base64url")
