import type { Sessions } from "../domain/HostInfo.js"
import { randomId } from "../state/token.js"

/**
 * Browser sessions of the web UI. `supervisor web` asks the supervisor (over its Unix socket) for
 * a one-time login code, valid for 2 minutes; opening `/login?code=...` exchanges it for a
 * session cookie (HttpOnly, SameSite=Strict, Max-Age: the session's lifetime). A pasted token is
 * exchanged the same way. Sessions live in memory: a supervisor restart logs browsers out; logout
 * ends the session on the server too.
 */

export const CODE_TTL_MS = 2 * 60 * 1000
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000

export const makeSessions = (now: () => number = Date.now): Sessions => {
  const codes = new Map<string, number>()
  const sessions = new Map<string, number>()
  const sweep = (m: Map<string, number>) => {
    const t = now()
    for (const [k, expires] of m) if (expires <= t) m.delete(k)
  }
  const newSession = () => {
    sweep(sessions)
    const id = randomId()
    sessions.set(id, now() + SESSION_TTL_MS)
    return id
  }
  return {
    newCode: () => {
      sweep(codes)
      const code = randomId(18)
      codes.set(code, now() + CODE_TTL_MS)
      return code
    },
    redeem: (code) => {
      const expires = codes.get(code)
      codes.delete(code)
      return expires !== undefined && expires > now() ? newSession() : undefined
    },
    newSession,
    isValid: (session) => {
      const expires = sessions.get(session)
      return expires !== undefined && expires > now()
    },
    revoke: (session) => {
      sessions.delete(session)
    },
  }
}
