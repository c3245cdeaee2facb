import { Context, type Deferred, type Ref } from "effect"

/** Web UI login codes and sessions (made by host/sessions.ts). */
export interface Sessions {
  /** A new one-time login code. */
  readonly newCode: () => string
  /** Consumes a login code; a new session ID when it was valid. */
  readonly redeem: (code: string) => string | undefined
  /** A new session (after a correct token was pasted). */
  readonly newSession: () => string
  readonly isValid: (session: string) => boolean
  /** Ends a session at once (logout): its cookie is worthless from then on. */
  readonly revoke: (session: string) => void
}

/** The URLs of the TCP listeners that are up (null: off). */
export interface ListenerUrls {
  readonly web: string | null
  readonly api: string | null
  /** The reverse proxy's URL while it listens (src/proxy/server.ts). */
  readonly proxy?: string | undefined
  /** The TLD of the slugs the listening proxy serves (`<slug>.<tld>`). */
  readonly proxyTld?: string | undefined
  /** Why the enabled proxy is not listening (a port in use), for `supervisor supervisor status`. */
  readonly proxyProblem?: string | undefined
}

/** Facts about the running supervisor process, for `supervisor supervisor status`. */
export interface HostInfoShape {
  readonly version: string
  readonly startedAt: number
  readonly stateDir: string
  readonly socket: string
  readonly listeners: Ref.Ref<ListenerUrls>
  /** Web UI login codes and sessions. */
  readonly sessions: Sessions
  /**
   * Completed to ask the supervisor to exit: `"stop"` stops every daemon first, `"keep"` leaves
   * them running for the next supervisor to adopt.
   */
  readonly shutdown: Deferred.Deferred<ShutdownMode>
}

export type ShutdownMode = "stop" | "keep"
export class HostInfo extends Context.Tag("supervisor/HostInfo")<HostInfo, HostInfoShape>() {}
